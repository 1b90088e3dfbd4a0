// Globals that a browser family, an in-app browser or a vendor build adds to window.
const FLAVORS = 'chrome safari webkit __crWeb __gCrWeb __firefox__ yandex __yb samsungAr opr ucweb puffinDevice'.split(' ');

export const vendorFlavors = () => FLAVORS.filter((n) => typeof (window as never)[n] == 'object').sort();
