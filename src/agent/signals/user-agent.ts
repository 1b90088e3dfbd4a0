export const userAgent = () => navigator.userAgent;
