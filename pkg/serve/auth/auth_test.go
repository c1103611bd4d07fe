package auth

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/pkg/errors"
)

const audience = "clusterplane"

// issuer is an OIDC issuer run inside the test: it serves the discovery document and the JWKS
// of an RSA key, and signs ID tokens with that key. go-oidc does the verifying.
type issuer struct {
	url string
	key *rsa.PrivateKey
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	iss := &issuer{key: newKey(t)}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(t, w, map[string]any{
			"issuer":                                iss.url,
			"jwks_uri":                              iss.url + "/keys",
			"id_token_signing_alg_values_supported": []string{"RS256"},
		})
	})
	mux.HandleFunc("/keys", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(t, w, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{
			Key: &iss.key.PublicKey, KeyID: "test-key", Algorithm: string(jose.RS256), Use: "sig",
		}}})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	iss.url = srv.URL
	return iss
}

func newKey(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func writeJSON(t *testing.T, w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		t.Error(err)
	}
}

// claims are the ones of a good ID token from iss; each case changes what it tests.
func (iss *issuer) claims() jwt.Claims {
	now := time.Now()
	return jwt.Claims{
		Issuer:   iss.url,
		Subject:  "user-123",
		Audience: jwt.Audience{audience},
		IssuedAt: jwt.NewNumericDate(now),
		Expiry:   jwt.NewNumericDate(now.Add(time.Hour)),
	}
}

// sign makes a JWT of std and extra signed with key under the issuer's key id.
func sign(t *testing.T, key *rsa.PrivateKey, std jwt.Claims, extra map[string]any) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{
		Algorithm: jose.RS256,
		Key:       jose.JSONWebKey{Key: key, KeyID: "test-key"},
	}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := jwt.Signed(signer).Claims(std).Claims(extra).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func request(remoteAddr string, headers map[string]string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/v1/clusters", nil)
	r.RemoteAddr = remoteAddr
	for k, v := range headers {
		r.Header.Set(k, v)
	}
	return r
}

// checkResult compares Authenticate's result with what a case wants, and checks that an error
// never quotes the credential.
func checkResult(t *testing.T, got Principal, err error, want Principal, wantUnauth bool, secret string) {
	t.Helper()
	if wantUnauth {
		t.Logf("error: %v", err)
		if !errors.Is(err, ErrUnauthenticated) {
			t.Fatalf("got %+v, %v; want ErrUnauthenticated", got, err)
		}
		if got != (Principal{}) {
			t.Errorf("got principal %+v with the error; want none", got)
		}
		if secret != "" && strings.Contains(err.Error(), secret) {
			t.Errorf("the error quotes the credential: %v", err)
		}
		return
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if got != want {
		t.Errorf("got %+v; want %+v", got, want)
	}
}

func TestOIDC(t *testing.T) {
	ctx := context.Background()
	iss := newIssuer(t)
	verifier, err := NewOIDC(ctx, iss.url, audience)
	if err != nil {
		t.Fatal(err)
	}
	a := &Authenticator{OIDC: verifier}
	other := newIssuer(t) // a real issuer, but not ours

	role := func(v any) map[string]any { return map[string]any{DefaultRoleClaim: v} }
	user := func(r Role) Principal { return Principal{Subject: "user-123", Role: r, Via: ViaOIDC} }

	tests := []struct {
		name       string
		token      func() string
		want       Principal
		wantUnauth bool
	}{
		{
			name:  "a valid token whose role claim is editor is an editor",
			token: func() string { return sign(t, iss.key, iss.claims(), role("editor")) },
			want:  user(Editor),
		},
		{
			name:  "a role claim that is an array gives the highest role named",
			token: func() string { return sign(t, iss.key, iss.claims(), role([]any{"viewer", "admin", "staff"})) },
			want:  user(Admin),
		},
		{
			name:  "a role claim naming no known role gives no role",
			token: func() string { return sign(t, iss.key, iss.claims(), role([]any{"staff", "Admin", 7})) },
			want:  user(""),
		},
		{
			name:  "a token without the role claim gives no role",
			token: func() string { return sign(t, iss.key, iss.claims(), nil) },
			want:  user(""),
		},
		{
			name:  "a role claim that is neither a string nor an array gives no role",
			token: func() string { return sign(t, iss.key, iss.claims(), role(map[string]any{"role": "admin"})) },
			want:  user(""),
		},
		{
			name: "an expired token is unauthenticated",
			token: func() string {
				c := iss.claims()
				c.IssuedAt = jwt.NewNumericDate(time.Now().Add(-2 * time.Hour))
				c.Expiry = jwt.NewNumericDate(time.Now().Add(-time.Minute))
				return sign(t, iss.key, c, role("admin"))
			},
			wantUnauth: true,
		},
		{
			name: "a token without an expiry is unauthenticated",
			token: func() string {
				c := iss.claims()
				c.Expiry = nil
				return sign(t, iss.key, c, role("admin"))
			},
			wantUnauth: true,
		},
		{
			name: "a token for another audience is unauthenticated",
			token: func() string {
				c := iss.claims()
				c.Audience = jwt.Audience{"some-other-app"}
				return sign(t, iss.key, c, role("admin"))
			},
			wantUnauth: true,
		},
		{
			name:       "a token signed by another key is unauthenticated",
			token:      func() string { return sign(t, newKey(t), iss.claims(), role("admin")) },
			wantUnauth: true,
		},
		{
			name: "a token naming another issuer is unauthenticated",
			token: func() string {
				c := iss.claims()
				c.Issuer = other.url
				return sign(t, iss.key, c, role("admin"))
			},
			wantUnauth: true,
		},
		{
			name:       "a token from another issuer, signed with its own key, is unauthenticated",
			token:      func() string { return sign(t, other.key, other.claims(), role("admin")) },
			wantUnauth: true,
		},
		{
			name: "a token whose signature was cut off is unauthenticated",
			token: func() string {
				raw := sign(t, iss.key, iss.claims(), role("admin"))
				return raw[:strings.LastIndex(raw, ".")+1]
			},
			wantUnauth: true,
		},
		{
			name: "a token whose claims were changed after signing is unauthenticated",
			token: func() string {
				good := strings.Split(sign(t, iss.key, iss.claims(), role("viewer")), ".")
				forged := strings.Split(sign(t, newKey(t), iss.claims(), role("admin")), ".")
				return good[0] + "." + forged[1] + "." + good[2]
			},
			wantUnauth: true,
		},
		{
			name:       "a bearer that is not a JWT is unauthenticated",
			token:      func() string { return "not-a-jwt-at-all" },
			wantUnauth: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := tt.token()
			got, err := a.Authenticate(request("192.0.2.1:4000", map[string]string{"Authorization": "Bearer " + raw}))
			checkResult(t, got, err, tt.want, tt.wantUnauth, raw)
		})
	}

	t.Run("the role claim can be renamed", func(t *testing.T) {
		a := &Authenticator{OIDC: verifier, RoleClaim: "groups"}
		raw := sign(t, iss.key, iss.claims(), map[string]any{"groups": []string{"controller"}, DefaultRoleClaim: "admin"})
		got, err := a.Authenticate(request("192.0.2.1:4000", map[string]string{"Authorization": "Bearer " + raw}))
		checkResult(t, got, err, user(Controller), false, raw)
	})
}

func TestNewOIDCNeedsAnAudienceAndAMatchingIssuer(t *testing.T) {
	ctx := context.Background()
	iss := newIssuer(t)
	if _, err := NewOIDC(ctx, iss.url, ""); err == nil {
		t.Error("an empty audience was accepted")
	}
	// The discovery document names iss.url; asking for another URL must fail.
	if _, err := NewOIDC(ctx, iss.url+"/", audience); err == nil {
		t.Error("an issuer URL that differs from the discovery document's was accepted")
	}
}

// memStore is an in-memory TokenStore.
type memStore struct {
	records map[string]TokenRecord
	err     error // returned for every lookup when set: the database is down
}

func (s *memStore) TokenByID(_ context.Context, id string) (TokenRecord, error) {
	if s.err != nil {
		return TokenRecord{}, s.err
	}
	rec, ok := s.records[id]
	if !ok {
		return TokenRecord{}, errors.Wrapf(ErrNoToken, "token %s", id)
	}
	return rec, nil
}

func newTestToken(t *testing.T, name string, role Role) (string, TokenRecord) {
	t.Helper()
	plain, rec, err := NewToken(name, role)
	if role == Controller {
		plain, rec, err = NewControllerToken(name, name)
	}
	if err != nil {
		t.Fatal(err)
	}
	return plain, rec
}

func TestAPITokens(t *testing.T) {
	ctrl, ctrlRec := newTestToken(t, "controller", Controller)
	revoked, revokedRec := newTestToken(t, "old-bot", Editor)
	revokedRec.Revoked = true
	unknown, _ := newTestToken(t, "never-stored", Admin)
	store := &memStore{records: map[string]TokenRecord{ctrlRec.ID: ctrlRec, revokedRec.ID: revokedRec}}
	a := &Authenticator{Tokens: store}

	wrongSecret := ctrl[:len(ctrl)-1] + map[bool]string{true: "1", false: "0"}[strings.HasSuffix(ctrl, "0")]

	tests := []struct {
		name       string
		token      string
		auth       *Authenticator
		want       Principal
		wantUnauth bool
	}{
		{
			name:  "a valid token has its record's role and controller",
			token: ctrl,
			want:  Principal{Subject: ctrlRec.ID, Role: Controller, Via: ViaToken, Controller: "controller"},
		},
		{name: "a token with a wrong secret is unauthenticated", token: wrongSecret, wantUnauth: true},
		{name: "a revoked token is unauthenticated", token: revoked, wantUnauth: true},
		{name: "a token whose id is unknown is unauthenticated", token: unknown, wantUnauth: true},
		{name: "a token with no secret is unauthenticated", token: TokenPrefix + ctrlRec.ID + "_", wantUnauth: true},
		{name: "a token in the wrong shape is unauthenticated", token: "cpt_" + ctrlRec.ID, wantUnauth: true},
		{
			name:       "a token is unauthenticated when API tokens are not enabled",
			token:      ctrl,
			auth:       &Authenticator{},
			wantUnauth: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			auth := a
			if tt.auth != nil {
				auth = tt.auth
			}
			got, err := auth.Authenticate(request("192.0.2.1:4000", map[string]string{"Authorization": "Bearer " + tt.token}))
			checkResult(t, got, err, tt.want, tt.wantUnauth, tt.token)
			if err != nil {
				// The secret alone must not leak either (the id may: it is only a lookup key).
				if _, secret, ok := strings.Cut(strings.TrimPrefix(tt.token, TokenPrefix), "_"); ok && secret != "" && strings.Contains(err.Error(), secret) {
					t.Errorf("the error quotes the secret: %v", err)
				}
			}
		})
	}

	t.Run("a failing token store is the server's error, not the caller's", func(t *testing.T) {
		a := &Authenticator{Tokens: &memStore{err: errors.New("connection refused")}}
		_, err := a.Authenticate(request("192.0.2.1:4000", map[string]string{"Authorization": "Bearer " + ctrl}))
		if err == nil || errors.Is(err, ErrUnauthenticated) {
			t.Fatalf("got %v; want a server error", err)
		}
		if strings.Contains(err.Error(), ctrl) {
			t.Errorf("the error quotes the token: %v", err)
		}
	})
}

func TestNewToken(t *testing.T) {
	plain, rec, err := NewToken("ci-bot", Editor)
	if err != nil {
		t.Fatal(err)
	}
	id, secret, ok := splitToken(plain)
	if !ok || id != rec.ID || len(id) < 12 {
		t.Fatalf("token %q does not read as cpt_<id>_<secret> with the record's id %q", plain, rec.ID)
	}
	if rec.Name != "ci-bot" || rec.Role != Editor || rec.Revoked {
		t.Errorf("record %+v; want name ci-bot, role editor, not revoked", rec)
	}
	if string(rec.Hash) != string(hashSecret(secret)) || strings.Contains(string(rec.Hash), secret) {
		t.Error("the record does not hold the secret's sha256 (and only that)")
	}
	again, rec2, err := NewToken("ci-bot", Editor)
	if err != nil {
		t.Fatal(err)
	}
	if again == plain || rec2.ID == rec.ID {
		t.Error("two tokens came out the same")
	}
	if _, _, err := NewToken("x", "root"); err == nil || !strings.Contains(err.Error(), "viewer, editor, controller, admin") {
		t.Errorf("an unknown role gave %v; want an error naming the roles", err)
	}
	if _, _, err := NewToken(" ", Viewer); err == nil {
		t.Error("an empty name was accepted")
	}
}

func TestProxyHeader(t *testing.T) {
	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	proxied := func(r Role) Principal { return Principal{Subject: "ann@example.com", Role: r, Via: ViaProxy} }

	tests := []struct {
		name       string
		trusted    []netip.Prefix
		proxyRole  Role
		remoteAddr string
		headers    map[string]string
		want       Principal
		wantUnauth bool
	}{
		{
			name:       "no Authorization and no proxy header is unauthenticated",
			trusted:    loopback,
			remoteAddr: "127.0.0.1:5000",
			wantUnauth: true,
		},
		{
			name:       "X-User-Email is ignored when no proxy is trusted",
			remoteAddr: "127.0.0.1:5000",
			proxyRole:  Editor,
			headers:    map[string]string{"X-User-Email": "ann@example.com"},
			wantUnauth: true,
		},
		{
			name:       "X-User-Email from a trusted proxy names the user, with the proxy role",
			trusted:    loopback,
			proxyRole:  Editor,
			remoteAddr: "127.0.0.1:5000",
			headers:    map[string]string{"X-User-Email": "ann@example.com"},
			want:       proxied(Editor),
		},
		{
			name:       "X-User-Email from a trusted proxy speaking IPv4-mapped IPv6 names the user",
			trusted:    loopback,
			proxyRole:  Viewer,
			remoteAddr: "[::ffff:127.0.0.1]:5000",
			headers:    map[string]string{"X-User-Email": "ann@example.com"},
			want:       proxied(Viewer),
		},
		{
			name:       "X-User-Email from a trusted proxy with no proxy role configured gives no role",
			trusted:    loopback,
			remoteAddr: "127.0.0.1:5000",
			headers:    map[string]string{"X-User-Email": "ann@example.com"},
			want:       proxied(""),
		},
		{
			name:       "X-User-Email from outside the trusted prefixes is ignored",
			trusted:    loopback,
			proxyRole:  Admin,
			remoteAddr: "10.1.2.3:5000",
			headers:    map[string]string{"X-User-Email": "ann@example.com"},
			wantUnauth: true,
		},
		{
			name:       "X-Forwarded-For does not make an outside address trusted",
			trusted:    loopback,
			proxyRole:  Admin,
			remoteAddr: "10.1.2.3:5000",
			headers:    map[string]string{"X-User-Email": "ann@example.com", "X-Forwarded-For": "127.0.0.1", "X-Real-Ip": "127.0.0.1"},
			wantUnauth: true,
		},
		{
			name:       "an empty X-User-Email from a trusted proxy is unauthenticated",
			trusted:    loopback,
			proxyRole:  Admin,
			remoteAddr: "127.0.0.1:5000",
			headers:    map[string]string{"X-User-Email": " "},
			wantUnauth: true,
		},
		{
			name:       "an unreadable remote address is not trusted",
			trusted:    loopback,
			proxyRole:  Admin,
			remoteAddr: "localhost:5000",
			headers:    map[string]string{"X-User-Email": "ann@example.com"},
			wantUnauth: true,
		},
		{
			name:       "a bad Authorization header is not rescued by a trusted proxy's header",
			trusted:    loopback,
			proxyRole:  Admin,
			remoteAddr: "127.0.0.1:5000",
			headers:    map[string]string{"X-User-Email": "ann@example.com", "Authorization": "Bearer cpt_nope"},
			wantUnauth: true,
		},
		{
			name:       "an Authorization header that is not Bearer is unauthenticated",
			remoteAddr: "127.0.0.1:5000",
			headers:    map[string]string{"Authorization": "Basic YWxhZGRpbjpvcGVuc2VzYW1l"},
			wantUnauth: true,
		},
		{
			name:       "an empty Bearer is unauthenticated",
			remoteAddr: "127.0.0.1:5000",
			headers:    map[string]string{"Authorization": "Bearer "},
			wantUnauth: true,
		},
		{
			name:       "a JWT is unauthenticated when OIDC is not enabled",
			remoteAddr: "127.0.0.1:5000",
			headers:    map[string]string{"Authorization": "Bearer eyJhbGciOiJSUzI1NiJ9.e30.c2ln"},
			wantUnauth: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &Authenticator{TrustedProxies: tt.trusted, ProxyRole: tt.proxyRole}
			got, err := a.Authenticate(request(tt.remoteAddr, tt.headers))
			checkResult(t, got, err, tt.want, tt.wantUnauth, "")
		})
	}
}

func TestRoleCan(t *testing.T) {
	perms := []Permission{Read, Write, WriteStatus, ManageTokens}
	// Each role's row lists what it may do, in the order of perms.
	tests := []struct {
		role Role
		can  [4]bool
	}{
		{Viewer, [4]bool{true, false, false, false}},
		{Editor, [4]bool{true, true, false, false}},
		{Controller, [4]bool{true, false, true, false}},
		{Admin, [4]bool{true, true, false, true}},
		{"", [4]bool{}},
		{"root", [4]bool{}},
		{"Admin", [4]bool{}},
	}
	for _, tt := range tests {
		for i, p := range perms {
			name := "role " + string(tt.role) + " may not " + p.String()
			if tt.can[i] {
				name = "role " + string(tt.role) + " may " + p.String()
			}
			t.Run(name, func(t *testing.T) {
				if got := tt.role.Can(p); got != tt.can[i] {
					t.Errorf("%q.Can(%s) = %v; want %v", tt.role, p, got, tt.can[i])
				}
			})
		}
	}
}

func TestParseRole(t *testing.T) {
	for _, r := range []Role{Viewer, Editor, Controller, Admin} {
		if got, err := ParseRole(string(r)); err != nil || got != r {
			t.Errorf("ParseRole(%q) = %q, %v", r, got, err)
		}
	}
	for _, s := range []string{"", "Admin", " admin", "root"} {
		_, err := ParseRole(s)
		if err == nil || !strings.Contains(err.Error(), "viewer, editor, controller, admin") {
			t.Errorf("ParseRole(%q) gave %v; want an error naming the roles", s, err)
		}
	}
}

func TestAControllerTokenNamesOnePrintableControllerThatIsNotServes(t *testing.T) {
	tests := []struct {
		name, controller string
		wantErr          string // "" when the token is made
	}{
		{"a controller token is made for a controller name", "gpu-probe", ""},
		{"a name with a dot and a slash is printable", "example.com/gpu-probe", ""},
		{"a name of the bound's length is made", strings.Repeat("c", MaxControllerName), ""},
		{"a controller token needs a controller name", "", "is required"},
		{"serve's own name is refused", "clusterplane", "reserved for serve's own workers"},
		{"serve's own name in another case is refused", "ClusterPlane", "reserved"},
		{"a name with a NUL is refused", "gpu\x00probe", "unprintable"},
		{"a name with a newline is refused", "gpu-probe\nclusterplane", "unprintable"},
		{"a name with a zero-width space is refused", "cluster\u200bplane", "unprintable"},
		{"a name with a space at its end is refused", "gpu-probe ", "space"},
		{"a name that is not UTF-8 is refused", "gpu\xffprobe", "UTF-8"},
		{"a name longer than the bound is refused", strings.Repeat("c", MaxControllerName+1), "at most"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, rec, err := NewControllerToken("bot", tt.controller)
			if tt.wantErr == "" {
				if err != nil || rec.Role != Controller || rec.Controller != tt.controller {
					t.Fatalf("got %+v, %v; want a controller token for %q", rec, err, tt.controller)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("got %v; want an error saying %q", err, tt.wantErr)
			}
		})
	}
	t.Run("NewToken makes no controller token, which must name its controller", func(t *testing.T) {
		if _, _, err := NewToken("bot", Controller); err == nil {
			t.Error("a controller token without a controller name was made")
		}
	})
}

// Promise: api-controller-token-one-controller
func TestOnlyAControllerTokenReportsAndOnlyUnderItsOwnName(t *testing.T) {
	token := Principal{Subject: "0123456789abcdef", Role: Controller, Via: ViaToken, Controller: "gpu-probe"}
	tests := []struct {
		name     string
		p        Principal
		report   string
		wantText string // "" when the report is allowed
	}{
		{"a controller token reports under its own name", token, "gpu-probe", ""},
		{"a controller token may not report under another name", token, "autoscaler", `as controller "gpu-probe" only`},
		{"a controller token may not report as serve's workers", token, "clusterplane", "reserved"},
		{"an admin may not report as serve's workers", Principal{Subject: "a", Role: Admin, Via: ViaToken}, "clusterplane", "reserved"},
		{"an admin may not report at all", Principal{Subject: "a", Role: Admin, Via: ViaToken}, "gpu-probe", "may not write-status"},
		{"a controller token made before tokens named their controller reports nothing",
			Principal{Subject: "0123456789abcdef", Role: Controller, Via: ViaToken}, "gpu-probe", "made before controller tokens named their controller"},
		{"an OIDC caller with the controller role reports nothing",
			Principal{Subject: "user", Role: Controller, Via: ViaOIDC}, "gpu-probe", "an OIDC caller may report none"},
		{"a trusted proxy's user with the controller role reports nothing",
			Principal{Subject: "me@example.com", Role: Controller, Via: ViaProxy}, "gpu-probe", "a trusted-proxy caller may report none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.p.MayReportAs(tt.report)
			if tt.wantText == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("got %v; want an error saying %q", err, tt.wantText)
			}
		})
	}
}
