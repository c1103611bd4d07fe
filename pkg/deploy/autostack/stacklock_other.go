//go:build !unix

package autostack

import "github.com/clusterplane/clusterplane/pkg/deploy/stackstate"

// lockFile: this build has no flock(2), and a lock file without it would outlive a killed
// process; a file backend here holds no lock across operations, and rotations are refused.
func lockFile(root, project, stack string) (func(), error) {
	return nil, stackstate.ErrNoStackLock
}
