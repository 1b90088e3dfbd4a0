/**
 * How likely a visitor ID is its browser's own ID (pure). A visitor created while look-alike
 * visitors existed may be a browser never seen before, or a known browser that lost its
 * storage and was not recognised; every answer naming that ID is only as sure as this.
 *
 * Two things tell them apart. At creation, the matcher's posterior that the browser is new
 * (`birth`). Afterwards, how many visits the ID has lasted: a browser that lost its storage
 * once tends to lose it again (cleared cookies, private windows, capped storage), so IDs
 * created after a loss see few visits, while a browser's first ID is the one that keeps coming
 * back. A logistic model combines both. Its weights are fitted by maximum likelihood on the
 * accuracy benchmark by bench/accuracy/fit-id-origin.ts (seed `calibration-1` at the report's
 * full size, 20,000 browsers over 90 days, with the two-bit link margin, relinking that weighs
 * the earlier ID's silence and the complete-signature evidence; refitted 2026-11-29, and
 * 2026-12-01 after the abandoned-storage weight), a seed other than the ones the report is
 * judged on.
 * Fitted on 2,000 browsers over 45 days before, the model was too sure at full size: over a
 * longer span, more of these IDs turn out to be another browser's.
 */
export const ID_ORIGIN_MODEL = {
  intercept: -1.985,
  /** Per unit of logit(birth): below 1, the matcher's posterior is too sure either way. */
  birthLogit: 0.376,
  /** Per unit of ln(1 + earlier visits of the ID). */
  visitsLog: 0.866,
  /** At the creating visit itself (no later visit of a private window or a lost jar yet). */
  creating: 0.497,
};

/**
 * The same model where the browser's token also lives in the service's cookie (`--visitor-cookie`,
 * the agent posting to the page's own origin: ingestion/visitor-cookie.ts). Safari's seven-day
 * deletion of script storage then takes no token, so far fewer browsers come back without one,
 * and an ID created among look-alikes is more often its browser's own: with ID_ORIGIN_MODEL
 * there the answers' observed error fell up to 11.7 points below the predicted one (accuracy
 * benchmark, 2026-12-03). Fitted the same way, by fit-id-origin.ts --visitor-cookie (seed
 * `calibration-1`, 20,000 browsers over 90 days, 2026-12-03: 379,358 answers naming 45,771 such
 * IDs, 75.8% of them right, against 69.7% without the cookie).
 */
export const ID_ORIGIN_MODEL_WITH_COOKIE: typeof ID_ORIGIN_MODEL = {
  intercept: -1.497,
  birthLogit: 0.354,
  visitsLog: 0.812,
  creating: 0.272,
};

/** The model for a visit: whether the service's cookie can keep its browser's token. */
export function idOriginModel(tokenCookie: boolean | undefined): typeof ID_ORIGIN_MODEL {
  return tokenCookie ? ID_ORIGIN_MODEL_WITH_COOKIE : ID_ORIGIN_MODEL;
}

/** Keeps logit(birth) finite. */
const EDGE = 1e-3;

const logit = (p: number) => Math.log(p / (1 - p));
const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/**
 * The model's inputs, by weight name: for an ID created among look-alikes with posterior
 * `birth`, after `earlierVisits` visits with it (0 for the answer that creates it, `creating`).
 */
export function idOriginFeatures(birth: number, earlierVisits: number, creating: boolean): Record<keyof typeof ID_ORIGIN_MODEL, number> {
  const b = Math.min(1 - EDGE, Math.max(EDGE, birth));
  return { intercept: 1, birthLogit: logit(b), visitsLog: Math.log1p(Math.max(0, earlierVisits)), creating: creating ? 1 : 0 };
}

/** P(the ID is its browser's own) by `model`, from the same inputs as idOriginFeatures. */
export function idOriginProbability(birth: number, earlierVisits: number, creating: boolean, model = ID_ORIGIN_MODEL): number {
  const features = idOriginFeatures(birth, earlierVisits, creating);
  let sum = 0;
  for (const [name, weight] of Object.entries(model)) sum += weight * features[name as keyof typeof ID_ORIGIN_MODEL];
  return sigmoid(sum);
}
