package auth

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/redact"
)

// NewOIDC reads the issuer's discovery document (<issuerURL>/.well-known/openid-configuration)
// and returns a verifier for its ID tokens that accepts only tokens whose audience includes
// audience (the client id the issuer puts in "aud" for clusterplane).
//
// ctx is used for discovery; an HTTP client set on it with oidc.ClientContext is also used
// later to fetch the issuer's keys. Its cancellation is not: the verifier outlives it.
func NewOIDC(ctx context.Context, issuerURL, audience string) (*oidc.IDTokenVerifier, error) {
	if issuerURL == "" {
		return nil, errors.New("OIDC: an issuer URL is required")
	}
	// Without an audience a token issued to any other application of the same issuer would
	// be accepted here.
	if audience == "" {
		return nil, errors.New("OIDC: an audience (client id) is required")
	}
	provider, err := oidc.NewProvider(ctx, issuerURL)
	if err != nil {
		return nil, errors.Wrapf(err, "OIDC discovery at %s", issuerURL)
	}
	return provider.Verifier(&oidc.Config{ClientID: audience}), nil
}

// authenticateOIDC verifies an ID token and reads its subject and role.
func (a *Authenticator) authenticateOIDC(ctx context.Context, raw string) (Principal, error) {
	if a.OIDC == nil {
		return Principal{}, unauthenticated("OIDC is not enabled")
	}
	tok, err := a.OIDC.Verify(ctx, raw)
	if err != nil {
		// Everything the verifier rejects is the caller's problem (401), even a failure to fetch
		// the issuer's keys: failing closed is safe, and the reason goes to the log. go-oidc's
		// messages name claims, not the token, but mask it anyway in case one ever does.
		return Principal{}, unauthenticated(maskToken(err.Error(), raw))
	}
	if tok.Subject == "" {
		return Principal{}, unauthenticated("OIDC token has no subject")
	}
	var claims map[string]json.RawMessage
	if err := tok.Claims(&claims); err != nil {
		return Principal{}, unauthenticated("OIDC token claims are not a JSON object")
	}
	claim := a.RoleClaim
	if claim == "" {
		claim = DefaultRoleClaim
	}
	return Principal{Subject: tok.Subject, Role: roleFromClaim(claims[claim]), Via: ViaOIDC}, nil
}

// roleFromClaim reads a role claim that is a string or an array of strings. Names that are not
// roles (an IdP's other groups) are skipped; of the roles named, the highest wins. Anything else
// (absent, a number, an object) gives no role.
func roleFromClaim(v json.RawMessage) Role {
	if len(v) == 0 {
		return ""
	}
	var one string
	if json.Unmarshal(v, &one) == nil {
		return highest([]string{one})
	}
	var many []any
	if json.Unmarshal(v, &many) != nil {
		return ""
	}
	names := make([]string, 0, len(many))
	for _, m := range many {
		if s, ok := m.(string); ok {
			names = append(names, s)
		}
	}
	return highest(names)
}

func highest(names []string) Role {
	var best Role
	for _, n := range names {
		if r := Role(n); r.rank() > best.rank() {
			best = r
		}
	}
	return best
}

// maskToken removes a JWT and each of its parts from a message.
func maskToken(msg, raw string) string {
	msg = strings.ReplaceAll(msg, raw, redact.Mask)
	for _, part := range strings.Split(raw, ".") {
		if len(part) >= redact.MinLength {
			msg = strings.ReplaceAll(msg, part, redact.Mask)
		}
	}
	return msg
}
