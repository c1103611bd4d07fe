package auth

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pkg/errors"
)

// ReservedController is the controller_name serve's own workers report under (it must equal
// reconcile.Controller, which a test in package serve checks). Their report alone sets an
// object's phase and health, which lists filter on, so no caller may report under it: not a
// controller token, not an admin. The check ignores case, so that "ClusterPlane" cannot pass for
// it in a status listing either.
const ReservedController = "clusterplane"

// MaxControllerName bounds a controller_name, in bytes.
const MaxControllerName = 128

// Reserved reports whether name is ReservedController, in any case.
func Reserved(name string) bool { return strings.EqualFold(name, ReservedController) }

// CheckControllerName says what is wrong with a controller_name, or nil. A name is shown in
// status listings and logs, so it must be printable text: no NUL, newline or other control
// character, no invisible character (a zero-width space would make two names look alike), no
// space at either end, valid UTF-8, at most MaxControllerName bytes.
func CheckControllerName(name string) error {
	switch {
	case name == "":
		return errors.New("is required")
	case len(name) > MaxControllerName:
		return errors.Errorf("is %d bytes long: at most %d", len(name), MaxControllerName)
	case !utf8.ValidString(name):
		return errors.New("is not valid UTF-8")
	case strings.TrimSpace(name) != name:
		return errors.New("starts or ends with a space")
	}
	for i, r := range name {
		if !unicode.IsPrint(r) {
			return errors.Errorf("holds the unprintable character %U at byte %d: only printable characters are allowed", r, i)
		}
	}
	return nil
}

// MayReportAs says why p may not report status under controller_name name, or nil when it may.
// name must already have passed CheckControllerName. The error's text is meant for the caller
// (the API's 403): it names the token's id, which is not secret, never the token.
//
// Only a controller API token reports, and only under the name it was made for. OIDC and
// trusted-proxy callers report nothing even with the controller role: neither an ID token's
// claims nor a proxy's header name a controller the operator chose, and a person signed in
// through either must not be able to write what a controller saw. Controller tokens made before
// tokens named their controller report nothing until replaced.
func (p Principal) MayReportAs(name string) error {
	if Reserved(name) {
		return errors.Errorf("controller_name %q is reserved for serve's own workers: no caller may report under it", name)
	}
	if !p.Role.Can(WriteStatus) {
		return errors.Errorf("%s (%s) may not %s", p.Subject, p.Role, WriteStatus)
	}
	if p.Via != ViaToken {
		return errors.Errorf("status is reported with a controller API token, which names its controller "+
			"(serve token create --role controller --controller NAME): %s caller may report none", describeVia(p.Via))
	}
	if p.Controller == "" {
		return errors.Errorf("API token %s was made before controller tokens named their controller, and may report no status: "+
			"replace it (serve token create --role controller --controller NAME, then serve token revoke %s)", p.Subject, p.Subject)
	}
	if name != p.Controller {
		return errors.Errorf("API token %s reports status as controller %q only, not %q", p.Subject, p.Controller, name)
	}
	return nil
}

// describeVia names how a caller was authenticated, with its article.
func describeVia(via string) string {
	switch via {
	case ViaOIDC:
		return "an OIDC"
	case ViaProxy:
		return "a trusted-proxy"
	}
	return fmt.Sprintf("a %q", via)
}
