export const pdfViewer = () => (navigator as { pdfViewerEnabled?: boolean }).pdfViewerEnabled;
