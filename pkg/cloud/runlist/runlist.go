// Package runlist keeps one list of each cloud account a run asks about (of each region, for a
// cloud that lists by region), so that the run lists the account once, not once a stack.
//
// A look-up that finds a cluster by its name (the name taken, the refusal of two of one name, the
// version a cluster runs) needs the account's clusters, page by page. A drift over a hundred
// changed stacks of an account of ten thousand clusters would list it a hundred times, at fifty
// pages each, against DigitalOcean's 250 requests a minute. A command's run makes one Lists
// (New), carries it on its context (With) and on each stack program's (under Key), and every
// look-up of the run takes the account's list from it (Get): made on first need, then shared.
//
// A list is never older than the run. A create in the run makes it stale for the next create:
// the deploy layer forgets the lists after an up that created something (Forget), and the next
// need lists again. A failed list is not kept: the next need asks again. A context that carries
// no Lists (a Pulumi user's own program, a run under mocks) leaves each look-up to list the
// account itself.
package runlist

import (
	"context"
	"sync"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
)

// Lists are one run's lists of the accounts it asked about, by key.
type Lists struct {
	mu    sync.Mutex
	lists map[string]*list
}

// list is one account's list: made while mu is held, so that a second asker waits for the
// first's answer instead of listing again. cloud is the account's cloud.
type list struct {
	mu    sync.Mutex
	cloud string
	made  bool
	value any
}

// Account is the cloud account a list is of: the cloud's ID ("digitalocean"), the base URL of
// its API, the token that tells the account apart, which the Lists keep only as a digest, and
// the part of the account listed, for a cloud that lists by region (Civo): the region, else "".
type Account struct {
	Cloud, API, Token, Region string
}

// key is the account as the Lists file its list: no token in the clear.
func (a Account) key() string {
	return a.Cloud + " " + a.API + " " + cloudapi.AccountOf(a.Token) + " " + a.Region
}

// Listed is account a's list from the run ctx carries: made by list on the run's first need of
// it, the same on every later call of the run. ok is false when ctx carries no run, and the
// caller lists as it would without one.
func Listed[T any](ctx context.Context, a Account, list func(context.Context) (T, error)) (v T, ok bool, err error) {
	lists := Of(ctx)
	if lists == nil {
		return v, false, nil
	}
	got, err := lists.Get(a, func() (any, error) { return list(ctx) })
	if err != nil {
		return v, true, err
	}
	return got.(T), true, nil
}

// New is a run's empty Lists.
func New() *Lists { return &Lists{lists: map[string]*list{}} }

// Get is the list of account a, made by read on the run's first need of it, and the same value
// on every later call until Forget. An error from read is returned and nothing is kept.
func (l *Lists) Get(a Account, read func() (any, error)) (any, error) {
	l.mu.Lock()
	one, ok := l.lists[a.key()]
	if !ok {
		one = &list{cloud: a.Cloud}
		l.lists[a.key()] = one
	}
	l.mu.Unlock()
	one.mu.Lock()
	defer one.mu.Unlock()
	if one.made {
		return one.value, nil
	}
	v, err := read()
	if err != nil {
		return nil, err
	}
	one.value, one.made = v, true
	return v, nil
}

// Holds tells whether a list of an account of cloud is made: the pacer asks whether the run has
// listed the account already (a list being made is waited for; a failed one is not held).
func (l *Lists) Holds(cloud string) bool {
	l.mu.Lock()
	var ones []*list
	for _, one := range l.lists {
		if one.cloud == cloud {
			ones = append(ones, one)
		}
	}
	l.mu.Unlock()
	for _, one := range ones {
		if one.isMade() {
			return true
		}
	}
	return false
}

// isMade tells whether the list is made, waiting for a read under way.
func (one *list) isMade() bool {
	one.mu.Lock()
	defer one.mu.Unlock()
	return one.made
}

// Forget drops every list: the next need of each lists again. The deploy layer calls it after
// an up that created something, which a list made before does not hold.
func (l *Lists) Forget() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lists = map[string]*list{}
}

// Key is the context key of a run's Lists. A stack program's Pulumi context carries them under
// it (deploytarget.Target.Program sets it with the Pulumi context's WithValue): a value on the Go
// context handed to Pulumi's Automation API does not reach the program's. The package imports
// nothing of Pulumi, so that the clouds' clients, which the Karpenter provider builds too, can
// read it.
type Key struct{}

// With is ctx carrying lists, for the run's own look-ups.
func With(ctx context.Context, lists *Lists) context.Context {
	return context.WithValue(ctx, Key{}, lists)
}

// Of is the Lists ctx carries (a run's context, or a program's ctx.Context()), nil when it
// carries none.
func Of(ctx context.Context) *Lists {
	lists, _ := ctx.Value(Key{}).(*Lists)
	return lists
}
