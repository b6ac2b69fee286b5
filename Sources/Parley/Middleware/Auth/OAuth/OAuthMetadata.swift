/// A protected resource's metadata (RFC 9728 section 2): which authorization servers issue its tokens and which
/// scopes it knows. Found by ``OAuthDiscovery/protectedResource(_:metadataURL:)``, which has checked that
/// ``resource`` is the resource asked about.
public struct ProtectedResourceMetadata: Sendable, Hashable, Decodable {
    /// The resource's identifier: its URL.
    public var resource: String
    /// The issuers of the authorization servers whose tokens it accepts; at least one.
    public var authorizationServers: [String]
    /// The scopes it uses, when it says.
    public var scopesSupported: [String]?
    /// How it takes a bearer token (`header`, `body`, `query`), when it says.
    public var bearerMethodsSupported: [String]?

    /// Metadata with these parts.
    public init(
        resource: String,
        authorizationServers: [String],
        scopesSupported: [String]? = nil,
        bearerMethodsSupported: [String]? = nil
    ) {
        self.resource = resource
        self.authorizationServers = authorizationServers
        self.scopesSupported = scopesSupported
        self.bearerMethodsSupported = bearerMethodsSupported
    }

    enum CodingKeys: String, CodingKey {
        case resource
        case authorizationServers = "authorization_servers"
        case scopesSupported = "scopes_supported"
        case bearerMethodsSupported = "bearer_methods_supported"
    }

    /// Decodes the metadata; a missing `authorization_servers` reads as none (which discovery refuses).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        resource = try container.decode(String.self, forKey: .resource)
        // Optional in RFC 9728, required by the MCP authorization specification: discovery checks it is not empty.
        authorizationServers = try container.decodeIfPresent([String].self, forKey: .authorizationServers) ?? []
        scopesSupported = try container.decodeIfPresent([String].self, forKey: .scopesSupported)
        bearerMethodsSupported = try container.decodeIfPresent([String].self, forKey: .bearerMethodsSupported)
    }
}

/// An authorization server's metadata (RFC 8414 section 2, or OpenID Connect Discovery's provider metadata): its
/// endpoints and what it supports. Found by ``OAuthDiscovery/authorizationServer(_:)``, which has checked that
/// ``issuer`` is the issuer asked about, character for character.
public struct AuthorizationServerMetadata: Sendable, Hashable, Decodable {
    /// The issuer identifier.
    public var issuer: String
    /// Where to send the user to authorize (the authorization code grant).
    public var authorizationEndpoint: String?
    /// Where to get tokens.
    public var tokenEndpoint: String?
    /// Where to register a client dynamically (RFC 7591), when it allows it.
    public var registrationEndpoint: String?
    /// Where to revoke a token (RFC 7009), when it has one.
    public var revocationEndpoint: String?
    /// Where to start the device authorization grant (RFC 8628), when it has one.
    public var deviceAuthorizationEndpoint: String?
    /// The scopes it knows, when it says.
    public var scopesSupported: [String]?
    /// The `response_type` values it supports.
    public var responseTypesSupported: [String]?
    /// The grant types it supports, when it says (RFC 8414 assumes `authorization_code` and `implicit` when not).
    public var grantTypesSupported: [String]?
    /// How a client may authenticate at the token endpoint, when it says (`client_secret_basic` when not).
    public var tokenEndpointAuthMethodsSupported: [String]?
    /// The PKCE methods it supports (RFC 7636). When it lists none, a client must not start the authorization code
    /// grant: it cannot know that PKCE is enforced.
    public var codeChallengeMethodsSupported: [String]?
    /// Whether it sends the `iss` parameter with an authorization response (RFC 9207).
    public var authorizationResponseIssParameterSupported: Bool?
    /// Whether it accepts a Client ID Metadata Document's URL as a `client_id`.
    public var clientIDMetadataDocumentSupported: Bool?

    /// Metadata with these parts.
    public init(
        issuer: String,
        authorizationEndpoint: String? = nil,
        tokenEndpoint: String? = nil,
        registrationEndpoint: String? = nil,
        revocationEndpoint: String? = nil,
        deviceAuthorizationEndpoint: String? = nil,
        scopesSupported: [String]? = nil,
        responseTypesSupported: [String]? = nil,
        grantTypesSupported: [String]? = nil,
        tokenEndpointAuthMethodsSupported: [String]? = nil,
        codeChallengeMethodsSupported: [String]? = nil,
        authorizationResponseIssParameterSupported: Bool? = nil,
        clientIDMetadataDocumentSupported: Bool? = nil
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.registrationEndpoint = registrationEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.scopesSupported = scopesSupported
        self.responseTypesSupported = responseTypesSupported
        self.grantTypesSupported = grantTypesSupported
        self.tokenEndpointAuthMethodsSupported = tokenEndpointAuthMethodsSupported
        self.codeChallengeMethodsSupported = codeChallengeMethodsSupported
        self.authorizationResponseIssParameterSupported = authorizationResponseIssParameterSupported
        self.clientIDMetadataDocumentSupported = clientIDMetadataDocumentSupported
    }

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case registrationEndpoint = "registration_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case scopesSupported = "scopes_supported"
        case responseTypesSupported = "response_types_supported"
        case grantTypesSupported = "grant_types_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
        case clientIDMetadataDocumentSupported = "client_id_metadata_document_supported"
    }
}
