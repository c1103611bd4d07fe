package api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/serve/api"
	"github.com/clusterplane/clusterplane/pkg/serve/auth"
)

// countingTokens knows no token, and counts how often it is asked.
type countingTokens struct{ lookups atomic.Int64 }

func (c *countingTokens) TokenByID(context.Context, string) (auth.TokenRecord, error) {
	c.lookups.Add(1)
	return auth.TokenRecord{}, auth.ErrNoToken
}

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
