// Package redact removes secrets from text before it is printed: the password in a URL
// (postgres://user:PASSWORD@host), a libpq password=VALUE, and the secret values of the run (API
// tokens, the passphrase, the backend's password) wherever they appear. The engine and its
// backends quote what they were given (a database URL in "unable to open state database"), so
// every error, log line and report that can carry their words goes through a Redactor.
package redact

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
)

// Mask is what a secret is replaced with, as clusterplane's other redactions write it.
const Mask = "[redacted]"

// MinLength is the shortest secret value a Redactor registers: replacing every "a" or "12" of a
// text would wreck it, and so short a value protects nothing anyway.
const MinLength = 4

// Environment variables whose values are secrets of the run. PULUMI_BACKEND_URL is not one (its
// host and database are worth printing); its password is.
var (
	// secretEnv are the clouds' token variables, as their drivers name them, and Pulumi's.
	secretEnv = append(tokenEnv(), "PULUMI_CONFIG_PASSPHRASE", "PULUMI_ACCESS_TOKEN")
	// fileEnv name files whose contents are secrets.
	fileEnv = []string{"PULUMI_CONFIG_PASSPHRASE_FILE"}
	// urlEnv name URLs whose passwords are secrets.
	urlEnv = []string{"PULUMI_BACKEND_URL"}
)

// tokenEnv are the variables the clouds' API tokens are read from.
func tokenEnv() []string {
	var out []string
	for _, d := range cloudlist.All() {
		out = append(out, d.Env().TokenEnv)
	}
	return out
}

// Redactor removes secrets from text. A nil or zero Redactor still removes the credentials of
// URLs and password=VALUE pairs; the values registered with New, With or WithURL it removes
// wherever they appear. It is immutable, so one can be shared by goroutines.
type Redactor struct {
	// secrets are the registered values, longest first, each once.
	secrets  []string
	replacer *strings.Replacer
}

// New is a Redactor of the given secret values; those shorter than MinLength are ignored.
func New(secrets ...string) *Redactor { return (*Redactor)(nil).With(secrets...) }

// FromEnv is the Redactor of this run: the values of the secret environment variables (API
// tokens, the passphrase), the contents of the passphrase file, the password of the backend URL.
func FromEnv() *Redactor { return fromLookup(os.Getenv, os.ReadFile) }

// fromLookup is FromEnv over any environment and file system, for tests.
func fromLookup(getenv func(string) string, readFile func(string) ([]byte, error)) *Redactor {
	var secrets []string
	for _, name := range secretEnv {
		secrets = append(secrets, getenv(name))
	}
	for _, name := range fileEnv {
		if path := getenv(name); path != "" {
			if data, err := readFile(path); err == nil {
				// Pulumi trims the file's surrounding space; the value inside is the secret.
				secrets = append(secrets, strings.TrimSpace(string(data)))
			}
		}
	}
	r := New(secrets...)
	for _, name := range urlEnv {
		r = r.WithURL(getenv(name))
	}
	return r
}

// With is a Redactor that also removes the given values, in every form a program may print them
// in: as given, URL-encoded, URL-decoded, and escaped in a JSON string.
func (r *Redactor) With(secrets ...string) *Redactor {
	seen := map[string]bool{}
	var all []string
	add := func(s string) {
		if len(s) >= MinLength && !seen[s] {
			seen[s] = true
			all = append(all, s)
		}
	}
	if r != nil {
		for _, s := range r.secrets {
			add(s)
		}
	}
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		add(s)
		add(url.QueryEscape(s))
		add(url.PathEscape(s))
		if d, err := url.QueryUnescape(s); err == nil {
			add(d)
		}
		if d, err := url.PathUnescape(s); err == nil {
			add(d)
		}
		if data, err := json.Marshal(s); err == nil {
			add(string(data[1 : len(data)-1]))
		}
	}
	// Longest first: a secret that contains another is removed whole, not around the other.
	sort.SliceStable(all, func(i, j int) bool { return len(all[i]) > len(all[j]) })
	out := &Redactor{secrets: all}
	if len(all) > 0 {
		pairs := make([]string, 0, 2*len(all))
		for _, s := range all {
			pairs = append(pairs, s, Mask)
		}
		out.replacer = strings.NewReplacer(pairs...)
	}
	return out
}

// WithURL is a Redactor that also removes the password of rawURL (its raw, decoded and encoded
// forms), wherever it appears: a program may print it without the URL around it.
func (r *Redactor) WithURL(rawURL string) *Redactor {
	if password := Password(rawURL); password != "" {
		return r.With(password)
	}
	if r == nil {
		return &Redactor{}
	}
	return r
}

// Password is the password in a URL's user information, as written in the URL (still encoded);
// "" when it has none. It reads URLs that url.Parse refuses too (an unencoded "/" or "#" in the
// password), since those are printed just the same.
func Password(rawURL string) string {
	_, rest, ok := strings.Cut(strings.TrimSpace(rawURL), "://")
	if !ok {
		return ""
	}
	// The user information ends at the last "@": a password may hold an unencoded "@", a host never.
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return ""
	}
	_, password, ok := strings.Cut(rest[:at], ":")
	if !ok {
		return ""
	}
	return password
}

// credentials matches the user information of a URL with a password: scheme://user:PASSWORD@.
// The password runs to the last "@" before the URL's path, query or fragment or the end of the
// word, as URL parsers read it; quotes end it too, since the URL may be quoted in a message.
var credentials = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*://[^\s:/?#@"'<>]*):[^\s/?#"'<>]*@`)

// keyValue matches a libpq password setting (password=VALUE, password='quoted value', sslpassword
// too) and the like in query strings and command lines; the key is kept, the value masked.
// A quoted value ends at its line's end when its quote does not; an unquoted one at a space or a
// separator, backslash escapes (a JSON string's \") within it.
var keyValue = regexp.MustCompile(`(?i)\b([a-z_]*(?:password|passwd|passphrase))([ \t]*=[ \t]*)` +
	`('(?:[^'\\\n]|\\.)*'?|"(?:[^"\\\n]|\\.)*"?|(?:\\.|[^\s&;,'"\\])+)`)

// String is text without the secrets: cost linear in its length.
func (r *Redactor) String(text string) string {
	if r != nil && r.replacer != nil {
		text = r.replacer.Replace(text)
	}
	if strings.Contains(text, "://") {
		text = credentials.ReplaceAllString(text, "${1}:"+Mask+"@")
	}
	if strings.Contains(text, "=") {
		text = keyValue.ReplaceAllStringFunc(text, func(m string) string {
			s := keyValue.FindStringSubmatch(m)
			if s[3] == Mask {
				return m
			}
			return s[1] + s[2] + Mask
		})
	}
	return text
}

// JSON is a JSON document without the secrets, still a valid document: its text redacted, or
// where that would break it (a value's quote taken for a password's), each of its strings.
func (r *Redactor) JSON(data []byte) []byte {
	clean := []byte(r.String(string(data)))
	if json.Valid(clean) || !json.Valid(data) {
		return clean
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return clean
	}
	out, err := json.MarshalIndent(r.value(v), "", "  ")
	if err != nil {
		return clean
	}
	return append(out, '\n')
}

// value is a decoded JSON value with every string (and key) redacted.
func (r *Redactor) value(v any) any {
	switch v := v.(type) {
	case string:
		return r.String(v)
	case []any:
		for i := range v {
			v[i] = r.value(v[i])
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[r.String(k)] = r.value(e)
		}
		return out
	}
	return v
}

// Error is err's message without the secrets, as an error; nil for nil. The result does not
// unwrap to err: what it wraps may say the secret again. Typed errors a caller matches with
// errors.As are best redacted where they are made (their fields), not here.
func (r *Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	message := err.Error()
	if clean := r.String(message); clean != message {
		return redacted(clean)
	}
	return err
}

// redacted is an error message with the secrets removed.
type redacted string

func (e redacted) Error() string { return string(e) }
