package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"strings"

	"github.com/pkg/errors"
)

// TokenPrefix starts every API token. It tells an API token from an OIDC JWT (which starts with
// "eyJ") without trying to parse it, and lets secret scanners recognise a leaked token.
const TokenPrefix = "cpt_"

// Sizes of a token's parts, in random bytes. The id is only a lookup key (it is not secret and
// may appear in logs); the secret's 32 bytes make guessing hopeless.
const (
	tokenIDBytes     = 8  // 16 hex characters
	tokenSecretBytes = 32 // 64 hex characters
)

// ErrNoToken is what a TokenStore returns when it has no token with the id asked for.
var ErrNoToken = errors.New("no such API token")

// TokenStore is where API tokens' records live; the server's database implements it.
type TokenStore interface {
	// TokenByID returns the record with this id, or an error that errors.Is ErrNoToken when
	// there is none. Any other error is taken as the store failing (a 500), not as a bad token.
	TokenByID(ctx context.Context, id string) (TokenRecord, error)
}

// TokenRecord is what is stored about an API token. It never holds the secret itself, only its
// SHA-256: a copy of the database must not let anyone call the API. (A plain hash, not bcrypt,
// is enough because the secret is 32 random bytes, not a password a person chose.)
type TokenRecord struct {
	ID      string // the public part of the token, the key to look it up by
	Name    string // what the token is for, e.g. "ci-bot" or "controller"
	Role    Role
	Hash    []byte // sha256 of the secret
	Revoked bool
	// Controller is the controller_name a controller token reports status under, and the only
	// one it may. It is empty for the other roles, and for controller tokens made before tokens
	// named their controller: those report nothing until replaced (see Principal.MayReportAs).
	Controller string
}

// NewToken makes an API token for a bot or a person's tool, of any role but controller (see
// NewControllerToken). The plain text, "cpt_<id>_<secret>", is to be shown once to whoever asked
// for it; only rec, which holds the secret's hash, is stored.
func NewToken(name string, role Role) (plain string, rec TokenRecord, err error) {
	if role == Controller {
		return "", TokenRecord{}, errors.New("new API token: a controller token names the controller_name it reports status under (NewControllerToken)")
	}
	return newToken(name, role, "")
}

// NewControllerToken makes an API token of the controller role that reports status under
// controller, and under no other controller_name: a token that could report under any name could
// pass itself off as another controller, or as serve's own workers (ReservedController, which
// no token may have). controller must pass CheckControllerName.
func NewControllerToken(name, controller string) (plain string, rec TokenRecord, err error) {
	if err := CheckControllerName(controller); err != nil {
		return "", TokenRecord{}, errors.Wrapf(err, "new API token: controller name %q", controller)
	}
	if Reserved(controller) {
		return "", TokenRecord{}, errors.Errorf("new API token: controller name %q is reserved for serve's own workers", controller)
	}
	return newToken(name, Controller, controller)
}

func newToken(name string, role Role, controller string) (plain string, rec TokenRecord, err error) {
	if strings.TrimSpace(name) == "" {
		return "", TokenRecord{}, errors.New("new API token: a name is required")
	}
	if !role.Valid() {
		_, err := ParseRole(string(role))
		return "", TokenRecord{}, errors.Wrap(err, "new API token")
	}
	id, err := randomHex(tokenIDBytes)
	if err != nil {
		return "", TokenRecord{}, errors.Wrap(err, "new API token")
	}
	secret, err := randomHex(tokenSecretBytes)
	if err != nil {
		return "", TokenRecord{}, errors.Wrap(err, "new API token")
	}
	rec = TokenRecord{ID: id, Name: name, Role: role, Hash: hashSecret(secret), Controller: controller}
	return TokenPrefix + id + "_" + secret, rec, nil
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", errors.Wrap(err, "reading random bytes")
	}
	return hex.EncodeToString(b), nil
}

func hashSecret(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// splitToken takes "cpt_<id>_<secret>" apart. It checks the shape strictly so that junk never
// reaches the database.
func splitToken(plain string) (id, secret string, ok bool) {
	rest, ok := strings.CutPrefix(plain, TokenPrefix)
	if !ok {
		return "", "", false
	}
	id, secret, ok = strings.Cut(rest, "_")
	if !ok || !isHex(id, 2*tokenIDBytes) || !isHex(secret, 2*tokenSecretBytes) {
		return "", "", false
	}
	return id, secret, true
}

// isHex reports whether s is exactly n lower-case hex digits.
func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// AuthenticateToken is who an API token's text authenticates as, as a request sending it would
// be: for a caller that holds a token outside any request (the sandbox checks the admin token
// it kept still opens its database).
func (a *Authenticator) AuthenticateToken(ctx context.Context, plain string) (Principal, error) {
	return a.authenticateToken(ctx, plain)
}

// authenticateToken checks an API token against the store. Its errors name the token's id at
// most (which is not secret), never the token.
func (a *Authenticator) authenticateToken(ctx context.Context, plain string) (Principal, error) {
	if a.Tokens == nil {
		return Principal{}, unauthenticated("API tokens are not enabled")
	}
	id, secret, ok := splitToken(plain)
	if !ok {
		return Principal{}, unauthenticated("malformed API token")
	}
	rec, err := a.Tokens.TokenByID(ctx, id)
	if errors.Is(err, ErrNoToken) {
		return Principal{}, unauthenticated("unknown API token " + id)
	}
	if err != nil {
		return Principal{}, errors.Wrapf(err, "looking up API token %s", id)
	}
	// Compare hashes in constant time so that the time taken does not tell how much of a
	// guessed secret was right.
	if subtle.ConstantTimeCompare(hashSecret(secret), rec.Hash) != 1 {
		return Principal{}, unauthenticated("wrong secret for API token " + id)
	}
	if rec.Revoked {
		return Principal{}, unauthenticated("API token " + id + " is revoked")
	}
	role := rec.Role
	if !role.Valid() {
		role = "" // a record with a role this build does not know grants nothing
	}
	p := Principal{Subject: rec.ID, Role: role, Via: ViaToken}
	if role == Controller {
		p.Controller = rec.Controller
	}
	return p, nil
}
