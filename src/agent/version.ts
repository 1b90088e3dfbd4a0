/** Agent version: sent as `sdk.version` and as `?ci=js/<version>`; equal to package.json's (a test checks). */
export const VERSION = '0.1.0';
