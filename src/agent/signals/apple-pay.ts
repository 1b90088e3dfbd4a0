/** 1 can pay, 0 cannot, -1 no Apple Pay, -2 refused (e.g. in a cross-origin frame). */
export const applePay = () => {
  const session = (window as { ApplePaySession?: { canMakePayments(): boolean } }).ApplePaySession;
  if (typeof session?.canMakePayments != 'function') return -1;
  try {
    return session.canMakePayments() ? 1 : 0;
  } catch {
    return -2;
  }
};
