package servecmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/atomicwrite"
	"github.com/clusterplane/clusterplane/pkg/ownedfs"
	"github.com/clusterplane/clusterplane/pkg/serve"
	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
	"github.com/pkg/errors"
)

// sandboxTokenFile keeps the sandbox's admin token in the sandbox's folder, 0600, as the sandbox
// keeps its passphrase: it opens nothing but the sandbox's own serve on 127.0.0.1.
const sandboxTokenFile = "serve-token"

// sandboxTokenName names the sandbox's admin token in serve token list.
const sandboxTokenName = "sandbox"

// sandboxToken is the admin token of the sandbox in dir: the one kept in its folder while it
// still opens st as admin, else a new one, kept there in its place. Minting one at every start
// left admin tokens that never expire piling up in the database (issue 63); the ones earlier
// builds made (sandbox-<time>) are revoked here, as is a kept one that no longer opens st as admin.
//
// Replicas started together in one sandbox would each find no token kept and each make one, the
// file keeping only the last: the others' live admin tokens, all named sandbox, would be written
// nowhere but their logs, and `serve token revoke sandbox` would refuse the shared name. So the
// whole choice is made under the tokens' lock: the second start reads the file the first wrote.
func sandboxToken(ctx context.Context, st *store.Store, dir string) (string, error) {
	var token string
	err := st.Tokens().Lock(ctx, func(ctx context.Context, tokens store.TokenTable) error {
		var err error
		token, err = keptOrNewSandboxToken(ctx, tokens, dir)
		return err
	})
	return token, err
}

// keptOrNewSandboxToken is sandboxToken's choice, made under the tokens' lock.
func keptOrNewSandboxToken(ctx context.Context, st store.TokenTable, dir string) (string, error) {
	path := filepath.Join(dir, sandboxTokenFile)
	kept := ""
	if _, err := os.Lstat(path); err == nil {
		// Whoever may write the file chooses the token the sandbox hands out.
		if err := ownedfs.CheckFile(path); err != nil {
			return "", errors.Wrap(err, "the sandbox's admin token")
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return "", errors.Wrap(err, "read the sandbox's admin token")
		}
		kept = strings.TrimSpace(string(data))
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", errors.Wrap(err, "read the sandbox's admin token")
	}
	token := ""
	if kept != "" {
		ok, err := opensAsAdmin(ctx, st, kept)
		if err != nil {
			return "", err
		}
		if ok {
			token = kept
		}
	}
	if token == "" {
		plain, err := serve.CreateToken(ctx, st, sandboxTokenName, auth.Admin, "")
		if err != nil {
			return "", err
		}
		if err := errors.Wrap(atomicwrite.Private(path, []byte(plain+"\n")), "keep the sandbox's admin token"); err != nil {
			return "", err
		}
		token = plain
	}
	if err := revokeOtherSandboxTokens(ctx, st, tokenID(token), tokenID(kept)); err != nil {
		return "", err
	}
	return token, nil
}

// opensAsAdmin tells whether plain authenticates as an admin on st: the answer serve would give.
func opensAsAdmin(ctx context.Context, st auth.TokenStore, plain string) (bool, error) {
	p, err := (&auth.Authenticator{Tokens: st}).AuthenticateToken(ctx, plain)
	if errors.Is(err, auth.ErrUnauthenticated) {
		return false, nil
	}
	if err != nil {
		return false, errors.Wrap(err, "check the sandbox's admin token")
	}
	return p.Role == auth.Admin, nil
}

// tokenID is the public id of an API token's text (cpt_<id>_<secret>), "" for none.
func tokenID(plain string) string {
	rest, ok := strings.CutPrefix(plain, auth.TokenPrefix)
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, "_")
	return id
}

// revokeOtherSandboxTokens revokes the sandbox's admin tokens other than keep: one kept before
// (staleID) that no longer opens the database as admin, and those earlier builds minted at every
// start, named sandbox-<unix time>.
func revokeOtherSandboxTokens(ctx context.Context, st store.TokenTable, keep, staleID string) error {
	tokens, err := st.List(ctx)
	if err != nil {
		return err
	}
	for _, t := range tokens {
		if t.ID == keep || t.RevokedAt != nil {
			continue
		}
		minted := t.Role == string(auth.Admin) && strings.HasPrefix(t.Name, "sandbox-") &&
			strings.Trim(strings.TrimPrefix(t.Name, "sandbox-"), "0123456789") == ""
		if t.ID != staleID && !minted {
			continue
		}
		if err := st.RevokeToken(ctx, t.ID); err != nil {
			return errors.Wrap(err, "revoke an earlier sandbox admin token")
		}
	}
	return nil
}
