export const deviceMemory = () => (navigator as { deviceMemory?: number }).deviceMemory;
