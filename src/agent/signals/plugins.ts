export const plugins = () => Array.from(navigator.plugins || [], (p) => p.name).sort();
