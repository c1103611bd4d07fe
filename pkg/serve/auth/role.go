package auth

import (
	"strconv"
	"strings"

	"github.com/pkg/errors"
)

// Role is what a caller may do. The empty Role is "no role": the caller is known but may do
// nothing, so the API answers 403 rather than 401.
type Role string

// The roles, from least to most trusted. Controller is not "more" than Editor in what it may do
// (it writes status, not specs), but the order decides which one wins when an OIDC claim names
// several roles (see Authenticator.RoleClaim).
const (
	Viewer     Role = "viewer"
	Editor     Role = "editor"
	Controller Role = "controller"
	Admin      Role = "admin"
)

// roles lists the known roles in rank order, lowest first.
var roles = []Role{Viewer, Editor, Controller, Admin}

// Permission is one kind of action a route needs.
type Permission int

const (
	// Read is listing and getting clusters and node pools.
	Read Permission = iota
	// Write is creating, updating and deleting clusters and node pools (their spec).
	Write
	// WriteStatus is PUT .../status: reporting what is really out there. Only the controller
	// does that, so that no person can make the API claim a cluster is ready when it is not.
	WriteStatus
	// ManageTokens is creating, listing and revoking API tokens.
	ManageTokens
)

// String names a permission for messages ("the route needs write-status").
func (p Permission) String() string {
	switch p {
	case Read:
		return "read"
	case Write:
		return "write"
	case WriteStatus:
		return "write-status"
	case ManageTokens:
		return "manage-tokens"
	}
	return "permission(" + strconv.Itoa(int(p)) + ")"
}

// Can reports whether the role allows p. Unknown roles and the empty role allow nothing.
//
//	viewer:     Read
//	editor:     Read, Write
//	controller: Read, WriteStatus
//	admin:      Read, Write, ManageTokens
//
// WriteStatus belongs to the controller alone, not even to admin: status is the controller's
// report of the world, and a person who "fixes" it by hand hides a real problem.
func (r Role) Can(p Permission) bool {
	switch r {
	case Viewer:
		return p == Read
	case Editor:
		return p == Read || p == Write
	case Controller:
		return p == Read || p == WriteStatus
	case Admin:
		return p == Read || p == Write || p == ManageTokens
	}
	return false
}

// Valid reports whether r is one of the known roles.
func (r Role) Valid() bool { return r.rank() > 0 }

// rank is the role's place in roles, from 1; 0 for an unknown or empty role.
func (r Role) rank() int {
	for i, k := range roles {
		if r == k {
			return i + 1
		}
	}
	return 0
}

// ParseRole reads a role's name as written in a flag or a config file. It is exact (lower case,
// no spaces) so that the value the operator wrote is the value that is checked.
func ParseRole(s string) (Role, error) {
	if r := Role(s); r.Valid() {
		return r, nil
	}
	names := make([]string, len(roles))
	for i, r := range roles {
		names[i] = string(r)
	}
	return "", errors.Errorf("unknown role %q: want one of %s", s, strings.Join(names, ", "))
}
