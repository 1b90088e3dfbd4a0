interface UaData {
  brands: { brand: string }[];
  mobile: boolean;
  platform: string;
}

/** User-agent client hints without versions; the rotating "Not A Brand" entry is dropped. */
export const uaData = () => {
  const d = (navigator as { userAgentData?: UaData }).userAgentData;
  return (
    d && {
      brands: d.brands.map((b) => b.brand).filter((b) => !/not.a.brand/i.test(b)).sort(),
      mobile: d.mobile,
      platform: d.platform,
    }
  );
};
