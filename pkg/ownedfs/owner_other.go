//go:build !unix

package ownedfs

import "io/fs"

// checksOwner is false here: Windows has no uids (os.Getuid is -1) and os.FileInfo carries no
// owner, and the permission bits Go reports are made up from the read-only attribute (a folder
// reads 0777), so neither says who may write. Only the link and type checks apply; the folders
// clusterplane uses are under the user's own profile (%LOCALAPPDATA%, %TEMP%), which Windows'
// ACLs keep private by default.
const checksOwner = false

// owner is -1: the system has no uids.
func owner(fs.FileInfo) int { return -1 }
