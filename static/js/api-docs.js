// Starts Swagger UI on /api/docs (an inline script would be refused by the site's CSP).
(function () {
  "use strict";
  var root = document.getElementById("swagger-ui");
  if (!root || typeof window.SwaggerUIBundle !== "function") return;
  window.SwaggerUIBundle({
    url: root.getAttribute("data-openapi-url"),
    domNode: root,
    deepLinking: true,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
})();
