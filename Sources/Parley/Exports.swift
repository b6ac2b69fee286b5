// Parley's seams are the ecosystem's own types; re-export them so `import Parley` is enough to write
// endpoints (`HTTPRequest.Method`, `HTTPFields`) and middlewares (`ClientMiddleware`, `HTTPBody`).
@_exported public import HTTPTypes

@_exported public import protocol OpenAPIRuntime.ClientMiddleware
@_exported public import protocol OpenAPIRuntime.ClientTransport
@_exported public import class OpenAPIRuntime.HTTPBody
