// The API reference page's one script of its own: Swagger UI over the service's OpenAPI document.
window.addEventListener('load', () => {
  window.SwaggerUIBundle({
    url: '/api/v1/openapi.json',
    dom_id: '#swagger',
    deepLinking: true,
    tryItOutEnabled: false,
  })
})
