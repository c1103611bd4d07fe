package api_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/serve/api"
	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

// countingTokens knows no token, and counts how often it is asked.
type countingTokens struct{ lookups atomic.Int64 }

func (c *countingTokens) TokenByID(context.Context, string) (auth.TokenRecord, error) {
	c.lookups.Add(1)
	return auth.TokenRecord{}, auth.ErrNoToken
}

// Promise: api-failed-auth-rate-limited
func TestAFloodOfGuessedTokensIsRefusedBeforeItsTokensAreLookedUp(t *testing.T) {
	tokens := &countingTokens{}
	s := &api.Server{Auth: &auth.Authenticator{Tokens: tokens}}
	s.LimitCallers(1, 3)
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	// A token of the right shape (junk never reaches the store), which the store does not hold.
	guess, _, err := auth.NewToken("guess", auth.Viewer)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[int]int{}
	for range 50 {
		req, _ := http.NewRequest("GET", ts.URL+"/api/v1/clusters", nil)
		req.Header.Set("Authorization", "Bearer "+guess)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		codes[resp.StatusCode]++
		if resp.StatusCode == http.StatusTooManyRequests && resp.Header.Get("Retry-After") == "" {
			t.Error("a 429 without Retry-After")
		}
	}
	if codes[http.StatusUnauthorized] > 4 || codes[http.StatusTooManyRequests] < 46 {
		t.Errorf("50 guessed tokens from one address, a burst of 3: %v, want at most 4 answered 401 and the rest 429", codes)
	}
	if n := tokens.lookups.Load(); n > 4 {
		t.Errorf("the tokens were looked up %d times, want at most 4 (the burst, and a refill)", n)
	}
}

// knownTokens holds one valid token and counts how often a token is looked up.
type knownTokens struct {
	rec     auth.TokenRecord
	revoked atomic.Bool
	lookups atomic.Int64
}

func (k *knownTokens) TokenByID(_ context.Context, id string) (auth.TokenRecord, error) {
	k.lookups.Add(1)
	if id != k.rec.ID {
		return auth.TokenRecord{}, auth.ErrNoToken
	}
	rec := k.rec
	rec.Revoked = k.revoked.Load()
	return rec, nil
}

func newToken(t *testing.T, name string) (string, auth.TokenRecord) {
	t.Helper()
	plain, rec, err := auth.NewToken(name, auth.Viewer)
	if err != nil {
		t.Fatal(err)
	}
	return plain, rec
}

func TestRateLimits(t *testing.T) {
	valid, rec := newToken(t, "portal")
	// The valid token's id with another secret: a record is read, the secret does not match.
	wrongSecret := valid[:len(valid)-4] + "0000"
	if wrongSecret == valid {
		wrongSecret = valid[:len(valid)-4] + "1111"
	}
	guesses := func(t *testing.T, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i], _ = newToken(t, "guess")
		}
		return out
	}
	repeat := func(token string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = token
		}
		return out
	}
	tests := []struct {
		name            string
		perSecond       float64
		burst           int
		flood           func(t *testing.T) []string // sent one after another first ("" sends no token)
		floodAtLeast429 int
		then            func(t *testing.T) string // the token of the requests sent at once next
		at              int                       // how many at once
		want            int                       // what each of them must be answered
		maxLookups      int64                     // 0: not checked
	}{
		{name: "200 requests at once on one token under the default limit are all served",
			perSecond: api.DefaultRateLimit, burst: api.DefaultRateBurst,
			then: func(*testing.T) string { return valid }, at: 200, want: http.StatusOK, maxLookups: 200},
		{name: "a valid token from an address that flooded a wrong secret is served",
			perSecond: 1, burst: 3, flood: func(*testing.T) []string { return repeat(wrongSecret, 50) }, floodAtLeast429: 46,
			then: func(*testing.T) string { return valid }, at: 1, want: http.StatusOK},
		{name: "a valid token from an address that flooded requests without a token is served",
			perSecond: 1, burst: 3, flood: func(*testing.T) []string { return repeat("", 50) }, floodAtLeast429: 46,
			then: func(*testing.T) string { return valid }, at: 1, want: http.StatusOK},
		{name: "a flood of one bad token is still limited, and its token read once",
			perSecond: 1, burst: 3, flood: func(*testing.T) []string { return repeat(wrongSecret, 50) }, floodAtLeast429: 46,
			then: func(*testing.T) string { return wrongSecret }, at: 5, want: http.StatusTooManyRequests, maxLookups: 1},
		{name: "a flood of ever new guesses is still limited, and few of them looked up",
			perSecond: 1, burst: 3, flood: func(t *testing.T) []string { return guesses(t, 50) }, floodAtLeast429: 45,
			then: func(t *testing.T) string { return guesses(t, 1)[0] }, at: 1, want: http.StatusTooManyRequests, maxLookups: 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := store.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "serve.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			tokens := &knownTokens{rec: rec}
			s := &api.Server{Store: st, Auth: &auth.Authenticator{Tokens: tokens}}
			s.LimitCallers(tt.perSecond, tt.burst)
			ts := httptest.NewServer(s.Handler())
			defer ts.Close()
			if tt.flood != nil {
				floodClusters(t, ts.URL, tt.flood(t), tt.floodAtLeast429)
			}
			got := getClustersAtOnce(t, ts.URL, tt.then(t), tt.at)
			if got[tt.want] != tt.at {
				t.Errorf("%d requests at once were answered %v, want all %d", tt.at, got, tt.want)
			}
			if n := tokens.lookups.Load(); tt.maxLookups > 0 && n > tt.maxLookups {
				t.Errorf("the tokens were looked up %d times, want at most %d", n, tt.maxLookups)
			}
		})
	}
}

// Promise: api-revoked-token-refused-within-5s
func TestARevokedTokenIsRefusedOnceTheCacheForgetsIt(t *testing.T) {
	valid, rec := newToken(t, "bot")
	st, err := store.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "serve.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tokens := &knownTokens{rec: rec}
	const ttl = 200 * time.Millisecond
	s := &api.Server{Store: st, Auth: &auth.Authenticator{Tokens: tokens}, TokenCacheTTL: ttl}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	call := func() int {
		req, _ := http.NewRequest("GET", ts.URL+"/api/v1/clusters", nil)
		req.Header.Set("Authorization", "Bearer "+valid)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for range 5 {
		if code := call(); code != http.StatusOK {
			t.Fatalf("a valid token: %d", code)
		}
	}
	if n := tokens.lookups.Load(); n != 1 {
		t.Errorf("5 requests read the token %d times, want once (then believed for %s)", n, ttl)
	}
	tokens.revoked.Store(true) // as `serve token revoke` does in the database
	time.Sleep(ttl + 50*time.Millisecond)
	if code := call(); code != http.StatusUnauthorized {
		t.Errorf("a token revoked %s ago: %d, want 401", ttl, code)
	}
	// serve leaves TokenCacheTTL at its default: a revoked token is refused within 5 seconds.
	if api.DefaultTokenCacheTTL > 5*time.Second {
		t.Errorf("DefaultTokenCacheTTL = %s, want at most the 5s docs/api.md promises", api.DefaultTokenCacheTTL)
	}
}

// getClusters lists the clusters as token ("" sends none), reading the body so the connection is reused.
func getClusters(url, token string) (int, error) {
	req, _ := http.NewRequest("GET", url+"/api/v1/clusters", nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// floodClusters sends the tokens' requests one by one and checks at least atLeast429 were refused.
func floodClusters(t *testing.T, url string, tokens []string, atLeast429 int) {
	t.Helper()
	codes := map[int]int{}
	for _, token := range tokens {
		code, err := getClusters(url, token)
		if err != nil {
			t.Fatal(err)
		}
		codes[code]++
	}
	if codes[http.StatusTooManyRequests] < atLeast429 {
		t.Fatalf("the flood was answered %v, want at least %d answered 429", codes, atLeast429)
	}
}

// getClustersAtOnce sends n requests at once, so that they race for the limit, and counts the answers.
func getClustersAtOnce(t *testing.T, url, token string, n int) map[int]int {
	t.Helper()
	codes := make([]int, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { codes[i], errs[i] = getClusters(url, token) })
	}
	wg.Wait()
	got := map[int]int{}
	for i := range codes {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		got[codes[i]]++
	}
	return got
}
