/** The larger offset of January 1st and July 1st, so daylight saving time does not change it. */
export const timezoneOffset = () => {
  const y = new Date().getFullYear();
  return Math.max(new Date(y, 0, 1).getTimezoneOffset(), new Date(y, 6, 1).getTimezoneOffset());
};
