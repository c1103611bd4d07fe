package cloudapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
)

const token = "dop_v1_secret_token_never_shown"

func TestARequestCarriesTheTokenAndItsJSONBodyAndReadsTheAnswer(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"id":"unauthorized","message":"Unable to authenticate you"}`)
			return
		}
		fmt.Fprintf(w, `{"method":%q,"path":%q,"query":%q,"type":%q,"body":%q}`,
			r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Content-Type"), body)
	}))
	defer server.Close()
	c := cloudapi.New(server.URL+"/", cloudapi.Bearer(token), cloudapi.Options{})
	var got struct{ Method, Path, Query, Type, Body string }
	if err := c.Do(context.Background(), http.MethodPut, "/v2/x?page=2", map[string]any{"tags": []string{"a"}}, &got); err != nil {
		t.Fatal(err)
	}
	want := struct{ Method, Path, Query, Type, Body string }{"PUT", "/v2/x", "page=2", "application/json", `{"tags":["a"]}`}
	if got != want {
		t.Errorf("the API saw %+v, want %+v", got, want)
	}
	var raw []byte
	if err := c.Do(context.Background(), http.MethodGet, "/v2/y", nil, &raw); err != nil || !strings.Contains(string(raw), `"path":"/v2/y"`) {
		t.Errorf("raw answer %q, %v; want the bytes as sent", raw, err)
	}
	if n := c.Requests(); n != 2 {
		t.Errorf("%d requests counted, want 2", n)
	}
}

// Promise: architecture-cloud-errors-never-name-the-token
func TestAnErrorNamesMethodPathAndStatusAndAShortReasonNeverTheTokenOrTheURL(t *testing.T) {
	long := strings.Repeat("x", 500)
	tests := []struct {
		name, body string
		status     int
		want       string
		notFound   bool
	}{
		{"the API's message", `{"message":"Unable to authenticate you"}`, 401, "GET /v2/kubernetes/clusters: HTTP 401 Unable to authenticate you", false},
		{"Civo's reason", `{"code":"database_cluster_not_found","reason":"The requested cluster does not exist"}`, 404,
			"GET /v2/kubernetes/clusters: HTTP 404 The requested cluster does not exist", true},
		{"a body that is not the API's is not quoted", "<html>" + token + "</html>", 502, "GET /v2/kubernetes/clusters: HTTP 502 bad gateway", false},
		{"the token echoed is cut out", `{"message":"token ` + token + ` is revoked"}`, 403, "HTTP 403 token [redacted] is revoked", false},
		{"a long message is cut short", `{"message":"` + long + `"}`, 422, "HTTP 422 " + long[:200] + "...", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				fmt.Fprint(w, tt.body)
			}))
			defer server.Close()
			// A base URL may carry credentials of its own; it is never quoted either.
			base := strings.Replace(server.URL, "http://", "http://user:base-secret@", 1)
			c := cloudapi.New(base, cloudapi.Bearer(token), cloudapi.Options{})
			err := c.Do(context.Background(), http.MethodGet, "/v2/kubernetes/clusters?page=1&name=x", nil, &struct{}{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to say %q", err, tt.want)
			}
			for _, secret := range []string{token, "base-secret", "page=1", server.URL} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error %q quotes %q", err, secret)
				}
			}
			if len(err.Error()) > 300 {
				t.Errorf("error of %d characters, want a short one", len(err.Error()))
			}
			if cloudapi.StatusOf(err) != tt.status || cloudapi.IsNotFound(err) != tt.notFound {
				t.Errorf("status %d (not found %t), want %d", cloudapi.StatusOf(err), cloudapi.IsNotFound(err), tt.status)
			}
		})
	}
}

func TestAnAPIThatDoesNotAnswerIsSaidSoWithoutItsURL(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(time.Second)
	}))
	defer server.Close()
	c := cloudapi.New(server.URL, cloudapi.Bearer(token), cloudapi.Options{Timeout: 100 * time.Millisecond})
	err := c.Do(context.Background(), http.MethodGet, "/v2/slow", nil, nil)
	if err == nil || err.Error() != "GET /v2/slow: no answer within 100ms" {
		t.Errorf("error %v, want GET /v2/slow: no answer within 100ms", err)
	}
}

func TestARefusedRequestIsAskedAgainAsTheRuleSaysAndCounted(t *testing.T) {
	tests := []struct {
		name      string
		method    string
		rule      cloudapi.Retry
		statuses  []int // the API's answers in turn; the last repeats
		wantAsked int
		wantErr   string // "" for success
	}{
		{"a 429 then an answer", "POST", cloudapi.Patient(4, time.Minute), []int{429, 200}, 2, ""},
		{"a 503 for ever gives up", "PUT", cloudapi.Backoff(2, time.Millisecond), []int{503}, 3, "gave up after 3 attempts: PUT /v2/x: HTTP 503 service unavailable"},
		{"a 404 is not asked again", "POST", cloudapi.Patient(4, time.Minute), []int{404}, 1, "POST /v2/x: HTTP 404 not found"},
		{"no rule asks once", "POST", nil, []int{429, 200}, 1, "POST /v2/x: HTTP 429 too many requests"},
		// Promise: cloud-client-never-resends-an-unclear-create
		{"a create answered 503 is not sent again whatever the rule, since the cloud may have made it", "POST",
			cloudapi.Patient(4, time.Minute), []int{503, 200}, 1, "POST /v2/x: HTTP 503 service unavailable"},
		{"a create answered 503 is not sent again by a backoff either", "POST",
			cloudapi.Backoff(3, time.Millisecond), []int{503, 200}, 1, "POST /v2/x: HTTP 503 service unavailable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked atomic.Int64
			server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := int(asked.Add(1))
				if b, _ := io.ReadAll(r.Body); string(b) != `{"n":1}` {
					t.Errorf("attempt %d sent %q, want the body every time", n, b)
				}
				w.Header().Set("Retry-After", "0")
				w.WriteHeader(tt.statuses[min(n, len(tt.statuses))-1])
				_ = json.NewEncoder(w).Encode(map[string]string{})
			}))
			defer server.Close()
			c := cloudapi.New(server.URL, cloudapi.Bearer(token), cloudapi.Options{Retry: tt.rule})
			err := c.Do(context.Background(), tt.method, "/v2/x", map[string]int{"n": 1}, nil)
			if (tt.wantErr == "" && err != nil) || (tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr)) {
				t.Errorf("error %v, want %q", err, tt.wantErr)
			}
			if int(asked.Load()) != tt.wantAsked || c.Requests() != tt.wantAsked {
				t.Errorf("asked %d times (counted %d), want %d", asked.Load(), c.Requests(), tt.wantAsked)
			}
		})
	}
}

// A read whose answer broke off is asked again, as a 5xx is; a write whose answer broke off is
// not, since the cloud may have carried it out.
// Promise: cloud-client-retries-reads-not-writes
func TestAReadThatGotNoAnswerIsAskedAgainAndAWriteIsNot(t *testing.T) {
	for _, tc := range []struct {
		method    string
		wantAsked int
		wantErr   bool
	}{
		{http.MethodGet, 2, false},
		{http.MethodPost, 1, true},
		{http.MethodDelete, 1, true},
	} {
		t.Run(tc.method, func(t *testing.T) {
			var asked atomic.Int64
			server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if asked.Add(1) == 1 {
					// The first answer breaks off: its connection closes with no status sent.
					conn, _, err := w.(http.Hijacker).Hijack()
					if err == nil {
						conn.Close()
					}
					return
				}
				_ = json.NewEncoder(w).Encode(map[string]string{})
			}))
			defer server.Close()
			c := cloudapi.New(server.URL, cloudapi.Bearer(token), cloudapi.Options{Retry: cloudapi.Backoff(3, time.Millisecond)})
			err := c.Do(context.Background(), tc.method, "/v2/x", nil, nil)
			if (err != nil) != tc.wantErr || int(asked.Load()) != tc.wantAsked {
				t.Errorf("%s: error %v, asked %d times; want an error %v, asked %d times", tc.method, err, asked.Load(), tc.wantErr, tc.wantAsked)
			}
		})
	}
}

func TestABaseThatIsNotAURLFailsAtOnceWithoutQuotingIt(t *testing.T) {
	c := cloudapi.New("http://user:base-secret@[bad", cloudapi.Bearer(token), cloudapi.Options{Retry: cloudapi.Patient(4, time.Minute)})
	start := time.Now()
	err := c.Do(context.Background(), http.MethodGet, "/v2/x?q=1", nil, nil)
	if err == nil || err.Error() != "GET /v2/x: the API URL is not a URL" || time.Since(start) > 500*time.Millisecond {
		t.Errorf("error %v after %v, want GET /v2/x: the API URL is not a URL at once", err, time.Since(start))
	}
}
