type OfflineContext = typeof OfflineAudioContext;

/**
 * Renders a compressed triangle wave offline and sums a slice of the samples: the result
 * depends on the audio stack (engine, OS, CPU). Safari may never finish while the page is
 * hidden; the collector's time bound covers that.
 */
export const audio = () => {
  const Context = window.OfflineAudioContext || (window as { webkitOfflineAudioContext?: OfflineContext }).webkitOfflineAudioContext;
  if (!Context) return;
  const ctx = new Context(1, 5000, 44100);
  const osc = ctx.createOscillator();
  osc.type = 'triangle';
  osc.frequency.value = 10000;
  const comp = ctx.createDynamicsCompressor();
  comp.threshold.value = -50;
  comp.knee.value = 40;
  comp.ratio.value = 12;
  comp.attack.value = 0;
  comp.release.value = 0.25;
  osc.connect(comp);
  comp.connect(ctx.destination);
  osc.start(0);
  return ctx.startRendering().then((buffer) => {
    const data = buffer.getChannelData(0);
    let sum = 0;
    for (let i = 4500; i < 5000; i++) sum += Math.abs(data[i]!);
    return String(sum);
  });
};
