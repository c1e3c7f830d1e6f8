/**
 * The reference page at /docs: Swagger UI reading /v1/openapi.json. Its script and styles
 * come from the app itself (/docs/assets/, the swagger-ui-dist package), nothing from a CDN.
 */
export const docsPage = () => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Agent Coin Platform API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

/** Starts Swagger UI on the document (a file of its own: the page has no inline script). */
export const DOCS_INIT_SCRIPT = (documentPath: string) => `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(documentPath)},
  dom_id: "#swagger-ui",
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
});
`;
