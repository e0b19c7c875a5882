// Starts Swagger UI on GET /docs. Loaded as a same-origin file because the
// page's Content-Security-Policy allows no inline script.
(function () {
  "use strict";
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.getAttribute("data-spec-url"),
    domNode: root,
    layout: "BaseLayout", // no top bar: the page shows this service's document only
    deepLinking: true,
    queryConfigEnabled: false, // never take ?url= or ?configUrl= from the address bar
    validatorUrl: null, // the default badge would ask validator.swagger.io
    displayRequestDuration: true,
    showExtensions: true,
    defaultModelsExpandDepth: 0,
  });
})();
