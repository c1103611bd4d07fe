package runlist_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud/runlist"
)

// Two accounts of one cloud: the same API, told apart by their tokens.
var (
	a = runlist.Account{Cloud: "digitalocean", API: "https://api.example", Token: "token-a"}
	b = runlist.Account{Cloud: "digitalocean", API: "https://api.example", Token: "token-b"}
)

func TestAnAccountIsListedOnceARunUntilTheRunForgetsItsLists(t *testing.T) {
	tests := []struct {
		name string
		// asks asks lists for the account's list, through read, as the run would.
		asks func(lists *runlist.Lists, read func() (any, error))
		want int
	}{
		{name: "every look-up after the first shares its list", want: 1, asks: func(lists *runlist.Lists, read func() (any, error)) {
			for range 5 {
				_, _ = lists.Get(a, read)
			}
		}},
		{name: "look-ups at once wait for the one list", want: 1, asks: func(lists *runlist.Lists, read func() (any, error)) {
			var wg sync.WaitGroup
			for range 8 {
				wg.Go(func() { _, _ = lists.Get(a, read) })
			}
			wg.Wait()
		}},
		{name: "another account has its own list", want: 2, asks: func(lists *runlist.Lists, read func() (any, error)) {
			_, _ = lists.Get(a, read)
			_, _ = lists.Get(b, read)
			_, _ = lists.Get(a, read)
		}},
		{name: "a forgotten list is made again", want: 2, asks: func(lists *runlist.Lists, read func() (any, error)) {
			_, _ = lists.Get(a, read)
			lists.Forget()
			_, _ = lists.Get(a, read)
			_, _ = lists.Get(a, read)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var made atomic.Int64
			tt.asks(runlist.New(), func() (any, error) { return made.Add(1), nil })
			if got := made.Load(); got != int64(tt.want) {
				t.Errorf("the account was listed %d times, want %d", got, tt.want)
			}
		})
	}
}

func TestAFailedListIsNotKeptAndTheNextLookUpListsAgain(t *testing.T) {
	lists := runlist.New()
	failure := errors.New("503")
	if _, err := lists.Get(a, func() (any, error) { return nil, failure }); !errors.Is(err, failure) {
		t.Fatalf("Get = %v, want the list's error", err)
	}
	got, err := lists.Get(a, func() (any, error) { return "listed", nil })
	if err != nil || got != "listed" {
		t.Errorf("after a failed list Get = %v, %v; want the new list", got, err)
	}
}

// The pacer asks whether the run holds a list of an account of a cloud: a made list, of that
// cloud, not forgotten.
func TestTheRunHoldsAListOfACloudOnlyOnceAListOfItIsMade(t *testing.T) {
	listed := func() (any, error) { return "listed", nil }
	tests := []struct {
		name  string
		asks  func(lists *runlist.Lists)
		cloud string
		want  bool
	}{
		{"a run that listed nothing holds nothing", func(*runlist.Lists) {}, "digitalocean", false},
		{"a list made is held for its cloud", func(l *runlist.Lists) { _, _ = l.Get(a, listed) }, "digitalocean", true},
		{"a list of another cloud is not held for this one", func(l *runlist.Lists) { _, _ = l.Get(a, listed) }, "civo", false},
		{"a failed list is not held", func(l *runlist.Lists) {
			_, _ = l.Get(a, func() (any, error) { return nil, errors.New("503") })
		}, "digitalocean", false},
		{"a forgotten list is not held", func(l *runlist.Lists) {
			_, _ = l.Get(a, listed)
			l.Forget()
		}, "digitalocean", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lists := runlist.New()
			tt.asks(lists)
			if got := lists.Holds(tt.cloud); got != tt.want {
				t.Errorf("Holds(%q) = %v, want %v", tt.cloud, got, tt.want)
			}
		})
	}
}

// The run keeps an account's list under a digest of its token, never the token itself.
func TestATokenIsNotKeptInTheClear(t *testing.T) {
	lists := runlist.New()
	_, _ = lists.Get(a, func() (any, error) { return "listed", nil })
	if got := fmt.Sprintf("%+v", lists); strings.Contains(got, a.Token) {
		t.Errorf("the lists hold the token in the clear: %s", got)
	}
}

func TestAContextCarriesItsRunsListsAndNoneElse(t *testing.T) {
	lists := runlist.New()
	if runlist.Of(context.Background()) != nil {
		t.Error("a context of no run carries lists")
	}
	if runlist.Of(runlist.With(context.Background(), lists)) != lists {
		t.Error("a run's context does not carry the run's lists")
	}
}
