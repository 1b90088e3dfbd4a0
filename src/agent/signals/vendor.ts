export const vendor = () => navigator.vendor;
