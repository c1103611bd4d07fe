// Package stackmark names the mark every cluster and node pool clusterplane deploys carries in the
// cloud: a tag that is its stack's alone, "clusterplane-stack:<backend>-<stack>".
//
// The tags clusterplane derives from a manifest (resource-name, environment, ...) name the
// manifest, and two stacks of one name in two backends share them. The mark names the backend
// too, so that what a create left in the cloud when its answer was lost is known for the stack's
// own: the next up takes it back instead of refusing it, and drift names a marked cluster no
// stack of the backend records.
//
// Both parts are 12 lowercase hexadecimal characters (digests: a backend URL or a stack key may
// hold characters no tag allows), so the mark is a valid tag on DigitalOcean and on Civo. The
// deploy layer works the mark out from its backend and puts it on the stack program's context
// (Carry); each kind's module adds it to the tags it sends (Of). A context that carries none, as
// a Pulumi user's own program and a run under mocks, adds no mark.
package stackmark

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/change/rotation"
)

// Prefix starts every mark's tag.
const Prefix = "clusterplane-stack:"

// Mark is one stack's mark: the digest of its backend and the digest of its key. The zero Mark is
// none.
type Mark struct{ Backend, Stack string }

// Of is the mark of stack key (<project>/<stack>) in the backend named backendID (BackendID).
func Of(backendID, key string) Mark {
	return Mark{Backend: rotation.Digest("clusterplane backend\x00" + backendID), Stack: rotation.StackDigest(key)}
}

// IsZero tells the zero Mark, which no resource carries.
func (m Mark) IsZero() bool { return m == Mark{} }

// Tag is the mark as the tag a resource carries; "" for the zero Mark.
func (m Mark) Tag() string {
	if m.IsZero() {
		return ""
	}
	return Prefix + m.Backend + "-" + m.Stack
}

// Label is the mark as a label's value, "<backend>-<stack>", for a cloud that keeps labels but
// no tags on what it makes (Civo's node pools); "" for the zero Mark.
func (m Mark) Label() string {
	if m.IsZero() {
		return ""
	}
	return m.Backend + "-" + m.Stack
}

// OfLabel reads a mark from a label's value as Label writes it; ok is false for anything else.
func OfLabel(value string) (Mark, bool) {
	m, ok := rotation.ParseMark(value)
	return Mark{Backend: m.Stack, Stack: m.ID}, ok
}

// In are the marks among tags; a tag of the prefix that is no mark (written by hand) is left out.
func In(tags []string) []Mark {
	var out []Mark
	for _, tag := range tags {
		rest, ok := strings.CutPrefix(tag, Prefix)
		if !ok {
			continue
		}
		if m, ok := OfLabel(rest); ok {
			out = append(out, m)
		}
	}
	return out
}

// IsMarkTag tells a tag that is a mark, whichever stack's.
func IsMarkTag(tag string) bool { return len(In([]string{tag})) == 1 }

// BackendID names a backend by its URL without what only reaches it (a user, a password, an
// option that holds a secret), so that the mark holds no secret and two commands that reach one
// backend with other credentials give its stacks the same marks. Options that say which backend
// it is (a bucket's endpoint, a storage account) are kept, sorted. Spellings of one URL are made
// one: the scheme and host in lower case, "postgresql" as "postgres", PostgreSQL's default port
// left out; a file backend whose folder is there is named by the folder as it really is (FileRoot,
// links followed), so that "~", a link and the path it leads to give one mark. A URL that does not
// parse is named by what follows its last "@", never its user or password.
func BackendID(rawURL string) string {
	if root, err := FileRoot(rawURL); err == nil && root != "" {
		// A relative folder is the process's working folder's, as the Pulumi CLI takes it.
		if abs, err := filepath.Abs(root); err == nil {
			root = abs
		}
		if real, err := filepath.EvalSymlinks(root); err == nil {
			return "file://" + filepath.ToSlash(real)
		}
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" {
		if i := strings.LastIndex(rawURL, "@"); i >= 0 {
			return "unparsed:" + rawURL[i+1:]
		}
		return "unparsed:" + rawURL
	}
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	if u.Scheme == "postgresql" {
		u.Scheme = "postgres"
	}
	if u.Scheme == "postgres" {
		u.Host = strings.TrimSuffix(u.Host, ":5432")
	}
	query := u.Query()
	for key := range query {
		if secretOption(key) {
			query.Del(key)
		}
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment = nil, query.Encode(), false, ""
	return u.String()
}

// FileRoot is the folder a file backend's URL names, "" for another backend. As the Pulumi CLI
// does, it leaves out options after "?" and takes "~" for the home folder.
func FileRoot(rawURL string) (string, error) {
	root, ok := strings.CutPrefix(rawURL, "file://")
	if !ok {
		return "", nil
	}
	root, _, _ = strings.Cut(root, "?")
	if root == "~" || strings.HasPrefix(root, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", errors.Wrapf(err, "find the home folder the backend URL %s names", rawURL)
		}
		root = filepath.Join(home, root[1:])
	}
	return filepath.FromSlash(root), nil
}

// secretOption tells a URL option whose value may be a secret (a password, a key, a token, a
// signature), left out of a backend's name.
func secretOption(key string) bool {
	key = strings.ToLower(key)
	for _, word := range []string{"pass", "secret", "token", "key", "sig", "credential", "auth", "sslcert", "sslrootcert"} {
		if strings.Contains(key, word) {
			return true
		}
	}
	return false
}

// key is the context key of a carried Mark.
type key struct{}

// Carry is ctx (a *pulumi.Context) carrying m, for the stack program run with it. A value on the
// Go context handed to Pulumi's Automation API does not reach the program's context: the program
// itself must be run with the one Carry returns. It names Pulumi's context by its method alone, so
// that what reads marks from a cloud's lists (the Karpenter provider's module among them) links no
// Pulumi SDK.
func Carry[C interface{ WithValue(key, val any) C }](ctx C, m Mark) C {
	return ctx.WithValue(key{}, m)
}

// From is the Mark ctx (a program's ctx.Context()) carries, the zero Mark when none.
func From(ctx context.Context) Mark {
	m, _ := ctx.Value(key{}).(Mark)
	return m
}

// Tags is tags with ctx's mark added when ctx carries one.
func Tags(ctx context.Context, tags []string) []string {
	if tag := From(ctx).Tag(); tag != "" {
		return append(slices.Clip(tags), tag)
	}
	return tags
}

// Context is ctx carrying m, for what reads the mark outside a stack program: a pool rotation's
// surge pool, created before the engine runs, takes the same tags as the module's pool.
func Context(ctx context.Context, m Mark) context.Context {
	return context.WithValue(ctx, key{}, m)
}
