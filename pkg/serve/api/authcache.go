package api

import (
	"crypto/sha256"
	"sync"
	"time"

	"github.com/clusterplane/clusterplane/pkg/serve/auth"
)

// DefaultTokenCacheTTL is how long a verified API token is believed without reading its record
// again: a revoked token still authenticates on a replica that verified it at most this long
// before the revocation.
const DefaultTokenCacheTTL = 5 * time.Second

// badCredentialTTL is how long a credential that failed is remembered as failing: a client
// resending it is refused without its token being looked up again. A token's id and secret
// are random, so one that failed does not become valid later (a revoked one stays revoked).
const badCredentialTTL = time.Minute

// credentialKey is what a credential is remembered by: its SHA-256, never its text, so that no
// token sits in the server's memory in plain text longer than its request.
type credentialKey [sha256.Size]byte

// credentials remembers, for a short while, which API tokens were verified (and as whom) and
// which credentials failed. A list from a portal sends 200 requests at once with one token: each
// would otherwise read the token's record, and with SQLite's single connection for writes and
// PostgreSQL's few, those reads queue behind one another.
type credentials struct {
	ttl time.Duration

	mu   sync.Mutex
	good map[credentialKey]verified
	bad  map[credentialKey]time.Time // when the failure is forgotten
}

type verified struct {
	p       auth.Principal
	expires time.Time
}

func newCredentials(ttl time.Duration) *credentials {
	return &credentials{ttl: ttl, good: map[credentialKey]verified{}, bad: map[credentialKey]time.Time{}}
}

// verified returns the principal a token was verified as, while that is recent enough.
func (c *credentials) verified(k credentialKey, now time.Time) (auth.Principal, bool) {
	if c.ttl <= 0 {
		return auth.Principal{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.good[k]
	if !ok || !now.Before(v.expires) {
		return auth.Principal{}, false
	}
	return v.p, true
}

// remember records that a token authenticated p. Only API tokens are kept: an OIDC token is
// checked without the database and carries its own expiry, and a proxy's header is no secret.
func (c *credentials) remember(k credentialKey, p auth.Principal, now time.Time) {
	if c.ttl <= 0 || p.Via != auth.ViaToken {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.good) >= maxCallers {
		for key, v := range c.good {
			if !now.Before(v.expires) {
				delete(c.good, key)
			}
		}
		if len(c.good) >= maxCallers {
			clear(c.good)
		}
	}
	c.good[k] = verified{p: p, expires: now.Add(c.ttl)}
}

// failed records that a credential failed to authenticate.
func (c *credentials) failed(k credentialKey, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.bad) >= maxCallers {
		for key, until := range c.bad {
			if !now.Before(until) {
				delete(c.bad, key)
			}
		}
		if len(c.bad) >= maxCallers {
			clear(c.bad)
		}
	}
	c.bad[k] = now.Add(badCredentialTTL)
}

// knownBad tells whether a credential failed recently.
func (c *credentials) knownBad(k credentialKey, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	until, ok := c.bad[k]
	return ok && now.Before(until)
}
