export const languages = () => [...(navigator.languages?.length ? navigator.languages : [navigator.language])];
