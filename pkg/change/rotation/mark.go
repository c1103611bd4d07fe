package rotation

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// A mark is what the pools clusterplane creates carry in the cloud (DigitalOcean: a tag; Civo: a
// node label), under a prefix or label of the maker's own: who owns the pool and which of the
// owner's makings it is, as "<owner digest>-<id>". Both parts are 12 lowercase hexadecimal
// characters, so that a mark is a valid DigitalOcean tag and a valid Kubernetes label value on
// any cloud. The owner is named by a digest (Digest) because its name may hold characters that
// neither tags nor labels allow.
//
// A rotation's pools carry the stack the rotation belongs to and the rotation's id: with the
// mark, a resume, a roll-back or a second runner finds exactly the pools the rotation made, and
// drift and status find a pool a rotation left behind (an orphan) as the stack's. The Karpenter
// provider's pools carry their NodeClass and the digest of its spec (karpenter/pkg/clouds' Mark).
type Mark struct {
	// Stack is the owner's digest: StackDigest of the stack's key for a rotation (the Karpenter
	// provider's NodeClass digest for its pools); ID the rotation's id (State.ID), or the digest
	// of the NodeClass's spec.
	Stack, ID string
}

const markPart = 12

// NewID is a new rotation id: 12 random hexadecimal characters.
func NewID() string {
	b := make([]byte, markPart/2)
	_, _ = rand.Read(b) // crypto/rand never fails on the platforms Go supports.
	return hex.EncodeToString(b)
}

// StackDigest names a stack (by its key, <project>/<stack>) in a mark.
func StackDigest(key string) string { return Digest("clusterplane stack\x00" + key) }

// Digest is a mark's part naming s: the first 12 hexadecimal characters of its SHA-256.
func Digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:markPart]
}

// NewMark is the mark of rotation id of the stack of key key.
func NewMark(key, id string) Mark { return Mark{Stack: StackDigest(key), ID: id} }

func (m Mark) String() string { return m.Stack + "-" + m.ID }

// ParseMark reads a mark as String writes it; ok is false for anything else.
func ParseMark(s string) (m Mark, ok bool) {
	stack, id, found := strings.Cut(s, "-")
	if !found || !isHex(stack) || !isHex(id) {
		return Mark{}, false
	}
	return Mark{Stack: stack, ID: id}, true
}

func isHex(s string) bool {
	if len(s) != markPart {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// MarkedPool is a pool of the cluster that a rotation created: its id, name and mark.
type MarkedPool struct {
	ID, Name string
	Mark     Mark
}
