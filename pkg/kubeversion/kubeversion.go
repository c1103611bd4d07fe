// Package kubeversion compares the Kubernetes version strings the clouds use: DigitalOcean slugs
// ("1.31.1-do.5"), minor lines ("1.31"), k3s ("v1.30.5-k3s1") and talos ("talos-v1.7.0")
// versions, by their numbers in order.
package kubeversion

import (
	"regexp"
	"strconv"
	"strings"
)

// minorLine is a version of only major and minor, e.g. "1.31".
var minorLine = regexp.MustCompile(`^[0-9]+\.[0-9]+$`)

// IsMinorLine tells whether v names a minor line ("1.31") rather than one version.
func IsMinorLine(v string) bool { return minorLine.MatchString(v) }

// Numbers returns the numbers of v in order ("1.31.1-do.5" gives 1, 31, 1, 5); nil when v has none
// or one does not fit an int.
func Numbers(v string) []int {
	var out []int
	for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r < '0' || r > '9' }) {
		n, err := strconv.Atoi(part)
		if err != nil {
			return nil
		}
		out = append(out, n)
	}
	return out
}

// Less tells whether a is older than b; ok is false when either has no numbers. A prefix is
// older than what extends it ("1.31" < "1.31.1-do.5").
func Less(a, b string) (less, ok bool) {
	na, nb := Numbers(a), Numbers(b)
	if len(na) == 0 || len(nb) == 0 {
		return false, false
	}
	for i := 0; i < len(na) && i < len(nb); i++ {
		if na[i] != nb[i] {
			return na[i] < nb[i], true
		}
	}
	return len(na) < len(nb), true
}

// SameMinor tells whether a and b have the same major and minor numbers.
func SameMinor(a, b string) bool {
	na, nb := Numbers(a), Numbers(b)
	return len(na) >= 2 && len(nb) >= 2 && na[0] == nb[0] && na[1] == nb[1]
}

// Minor returns the "major.minor" of v, or "" when v has fewer than two numbers.
func Minor(v string) string {
	n := Numbers(v)
	if len(n) < 2 {
		return ""
	}
	return strconv.Itoa(n[0]) + "." + strconv.Itoa(n[1])
}

// MinorSteps returns how many minor versions to is above from (1.30 to 1.32 is 2, a lower minor
// is negative); ok is false when either has fewer than two numbers or their majors differ.
func MinorSteps(from, to string) (steps int, ok bool) {
	nf, nt := Numbers(from), Numbers(to)
	if len(nf) < 2 || len(nt) < 2 || nf[0] != nt[0] {
		return 0, false
	}
	return nt[1] - nf[1], true
}
