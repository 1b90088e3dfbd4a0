export const hardwareConcurrency = () => navigator.hardwareConcurrency;
