export const platform = () => navigator.platform;
