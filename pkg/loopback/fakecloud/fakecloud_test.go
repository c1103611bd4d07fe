package fakecloud_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
)

// counter is a cloud of one number: a POST adds one and answers the count.
type counter struct{ n int }

func (*counter) Authorized(r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer t" }

func (*counter) Error(w http.ResponseWriter, status int, message string) {
	w.WriteHeader(status)
	_, _ = io.WriteString(w, `{"message":"`+message+`"}`)
}

func (c *counter) Serve(w http.ResponseWriter, r *http.Request, _ []byte) {
	if r.Method == http.MethodPost {
		c.n++
	}
	w.WriteHeader(http.StatusCreated)
	_, _ = io.WriteString(w, `{"created":true}`)
}

func post(t *testing.T, s *fakecloud.Server) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.URL()+"/things", strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer t")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestAFaultAnswersInsteadOfTheCloudUnlessItCommitsFirst(t *testing.T) {
	tests := []struct {
		name   string
		commit bool
		// want is how many things the cloud holds after two failed POSTs.
		want int
	}{
		{"a fault before the cloud: nothing is made", false, 0},
		{"a committing fault: made, then answered 500", true, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &counter{}
			s := fakecloud.Start(t, c)
			s.Inject(fakecloud.Fault{Method: http.MethodPost, Path: "/things", Status: http.StatusInternalServerError,
				Commit: tt.commit, Times: 2})
			for range 2 {
				if status, body := post(t, s); status != http.StatusInternalServerError || strings.Contains(body, "created") {
					t.Fatalf("POST = %d %s, want the fault's 500 and not the cloud's answer", status, body)
				}
			}
			s.Mu.Lock()
			got := c.n
			s.Mu.Unlock()
			if got != tt.want {
				t.Errorf("the cloud made %d things, want %d", got, tt.want)
			}
			if status, _ := post(t, s); status != http.StatusCreated {
				t.Errorf("after the fault's Times, POST = %d, want the cloud's 201", status)
			}
			if reqs := s.Requests(http.MethodPost); len(reqs) != 3 || reqs[0].Status != http.StatusInternalServerError {
				t.Errorf("recorded %+v, want 3 POSTs, the first answered 500", reqs)
			}
		})
	}
}

func TestEveryAnsweredRequestIsToldWithItsTimeAndStatus(t *testing.T) {
	c := &counter{}
	s := fakecloud.Start(t, c)
	type seen struct {
		method, path string
		status       int
	}
	var got []seen
	before := time.Now()
	s.OnRequest(func(at time.Time, r fakecloud.Request) {
		if at.Before(before) || at.After(time.Now()) {
			t.Errorf("told of %s %s at %v, not while it was answered", r.Method, r.Path, at)
		}
		got = append(got, seen{r.Method, r.Path, r.Status})
	})
	s.Inject(fakecloud.Fault{Method: http.MethodPost, Status: http.StatusTooManyRequests, RetryAfter: time.Second})
	post(t, s)
	post(t, s)
	want := []seen{{"POST", "/things", http.StatusTooManyRequests}, {"POST", "/things", http.StatusCreated}}
	if len(got) != len(want) {
		t.Fatalf("told of %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("request %d: told %v, want %v", i, got[i], want[i])
		}
	}
	s.OnRequest(nil)
	post(t, s)
	if len(got) != len(want) {
		t.Errorf("told of a request after the hook was removed: %v", got)
	}
}
