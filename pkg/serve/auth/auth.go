// Package auth decides who a request to `clusterplane serve` comes from and what role they have.
//
// It must hold with nothing in front of the server: every credential is checked here, by the
// server itself. A request may carry
//
//   - "Authorization: Bearer cpt_<id>_<secret>", an API token for a bot or the controller,
//     checked against the hashes in a TokenStore;
//   - "Authorization: Bearer <JWT>", an OIDC ID token, checked by github.com/coreos/go-oidc
//     (signature against the issuer's published keys, issuer, audience, expiry);
//   - "X-User-Email: someone@example.com" set by an authenticating proxy, believed only when the
//     connection comes straight from an address listed in TrustedProxies.
//
// What each role may do is Role.Can.
package auth

import (
	"net/http"
	"net/netip"
	"strings"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/pkg/errors"
)

// ErrUnauthenticated means the request carries no credential or a bad one; the API answers 401.
// Errors from Authenticate that are not ErrUnauthenticated are the server's own failures (500).
var ErrUnauthenticated = errors.New("unauthenticated")

// unauthenticated is ErrUnauthenticated with the reason, for the server's log. Callers must not
// put the credential itself in why.
func unauthenticated(why string) error {
	return errors.Wrap(ErrUnauthenticated, why)
}

// How a Principal was authenticated.
const (
	ViaOIDC  = "oidc"
	ViaToken = "token"
	ViaProxy = "proxy"
)

// DefaultRoleClaim is the OIDC claim read for the role when Authenticator.RoleClaim is empty.
const DefaultRoleClaim = "clusterplane_role"

// ProxyUserHeader is the header an authenticating proxy names the user in.
const ProxyUserHeader = "X-User-Email"

// Principal is who made a request.
type Principal struct {
	// Subject is the OIDC "sub" claim, the API token's id, or the e-mail from the proxy.
	Subject string
	// Role is "" when the caller is authenticated but holds no known role (answer 403).
	Role Role
	// Via is ViaOIDC, ViaToken or ViaProxy.
	Via string
	// Controller is the one controller_name the caller may report status under: a controller
	// API token's own (TokenRecord.Controller). It is empty for every other caller, who may
	// report none (see MayReportAs).
	Controller string
}

// Authenticator finds the Principal of a request. Its zero value trusts nothing: every request
// is ErrUnauthenticated. It is safe for concurrent use once set up.
type Authenticator struct {
	// OIDC verifies ID tokens (see NewOIDC); nil means no OIDC.
	OIDC *oidc.IDTokenVerifier
	// RoleClaim is the ID token claim holding the role: a string or an array of strings.
	// Unknown names are skipped and the highest known role wins (viewer < editor < controller
	// < admin). Empty means DefaultRoleClaim.
	RoleClaim string
	// Tokens holds the API tokens' records; nil means no API tokens.
	Tokens TokenStore
	// TrustedProxies are the remote addresses (r.RemoteAddr) whose X-User-Email is believed.
	// From anywhere else the header is ignored, as if absent: anyone can send a header, only
	// the proxy's address says the proxy sent it. Empty means the header is always ignored.
	//
	// This relies on r.RemoteAddr being the real peer: do not put a middleware that rewrites it
	// from X-Forwarded-For or X-Real-IP in front of Authenticate.
	TrustedProxies []netip.Prefix
	// ProxyRole is the role of a user named by a trusted proxy. Empty gives them no role (403).
	ProxyRole Role
}

// Authenticate returns who r comes from. An Authorization header, when present, decides alone:
// a bad one is ErrUnauthenticated even if a trusted proxy also named a user, so that a
// credential the caller chose to send is never silently swapped for another. Without one, a
// trusted proxy's X-User-Email is used.
//
// The error is ErrUnauthenticated (wrapped with the reason) for a missing, garbled, forged,
// expired, wrongly addressed, unknown or revoked credential; it never contains the credential.
// Any other error means the server could not check (e.g. the token store failed).
func (a *Authenticator) Authenticate(r *http.Request) (Principal, error) {
	if values := r.Header.Values("Authorization"); len(values) > 0 {
		if len(values) > 1 {
			return Principal{}, unauthenticated("more than one Authorization header")
		}
		raw, ok := bearer(values[0])
		if !ok {
			return Principal{}, unauthenticated("Authorization header is not \"Bearer <token>\"")
		}
		if strings.HasPrefix(raw, TokenPrefix) {
			return a.authenticateToken(r.Context(), raw)
		}
		return a.authenticateOIDC(r.Context(), raw)
	}
	if user, ok := a.proxyUser(r); ok {
		return Principal{Subject: user, Role: a.ProxyRole, Via: ViaProxy}, nil
	}
	return Principal{}, unauthenticated("no credential")
}

// bearer returns the token of an "Authorization: Bearer <token>" header. The scheme is case
// insensitive (RFC 9110); the token must be a single non-empty word.
func bearer(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	if token == "" || strings.ContainsAny(token, " \t") {
		return "", false
	}
	return token, true
}

// proxyUser returns the user a trusted proxy named in X-User-Email. The header counts only if
// the connection's peer is inside TrustedProxies and it holds exactly one non-empty value.
func (a *Authenticator) proxyUser(r *http.Request) (string, bool) {
	if len(a.TrustedProxies) == 0 {
		return "", false
	}
	values := r.Header.Values(ProxyUserHeader)
	if len(values) != 1 {
		return "", false
	}
	user := strings.TrimSpace(values[0])
	if user == "" {
		return "", false
	}
	addr, ok := remoteAddr(r.RemoteAddr)
	if !ok {
		return "", false
	}
	for _, p := range a.TrustedProxies {
		if p.Contains(addr) {
			return user, true
		}
	}
	return "", false
}

// remoteAddr reads the peer's address from r.RemoteAddr ("ip:port", or a bare ip in tests). An
// IPv4 address written as IPv6 (::ffff:10.0.0.1) is unmapped so that IPv4 prefixes match it;
// a zone is dropped, since prefixes never match zoned addresses.
func remoteAddr(s string) (netip.Addr, bool) {
	var addr netip.Addr
	if ap, err := netip.ParseAddrPort(s); err == nil {
		addr = ap.Addr()
	} else if a, err := netip.ParseAddr(s); err == nil {
		addr = a
	} else {
		return netip.Addr{}, false
	}
	return addr.Unmap().WithZone(""), true
}
