// Package statefile reads a stack's state file as a self-managed Pulumi backend stores it (an
// apitype.VersionedCheckpoint holding a CheckpointV3, pkg/backend/diy in pulumi/pulumi v3.259.0):
// its latest deployment, as written and parsed, in one pass where it can (OnePass), else decoded
// as the Pulumi CLI decodes it (Latest).
package statefile

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
)

// Read is what a stack's state file says, read in one pass (OnePass).
type Read struct {
	version int
	// Latest is the checkpoint's latest deployment as written (nil when it has none, "null"
	// when it says so), and Deployment the same parsed.
	Latest     json.RawMessage
	Deployment apitype.DeploymentV3
}

// OnePass reads a stack's state file (an apitype.VersionedCheckpoint holding a CheckpointV3)
// in one pass: its version and its latest deployment, both as raw bytes and parsed. A status of
// ten thousand stacks parses ten thousand checkpoints, and json.Unmarshal into the versioned
// checkpoint, then into the checkpoint, then into the deployment, goes over each five times.
// ok is false for any file whose reading here might differ from those three decodes' (a key
// twice or in other letter case, a field of another type, a checkpoint of another version, data
// after it, JSON that does not parse): the caller decodes it so, and says what they say.
func OnePass(data []byte) (c Read, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if !openObject(dec) {
		return Read{}, false
	}
	var sawVersion, sawCheckpoint bool
	for dec.More() {
		key, ok := keyOf(dec)
		switch {
		case !ok:
			return Read{}, false
		case key == "version" && !sawVersion:
			sawVersion = true
			if dec.Decode(&c.version) != nil {
				return Read{}, false
			}
		case key == "checkpoint" && !sawCheckpoint:
			sawCheckpoint = true
			if !c.readLatest(dec, data) {
				return Read{}, false
			}
		default:
			// Features, another field, or one of the above twice or in other case: the rare
			// file json.Unmarshal reads.
			return Read{}, false
		}
	}
	if !closeObject(dec) {
		return Read{}, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return Read{}, false
	}
	return c, sawVersion && sawCheckpoint && c.version == 3
}

// readLatest reads the checkpoint object at dec's place, keeping its latest deployment; data is
// the whole input, from which the deployment's raw bytes are cut.
func (c *Read) readLatest(dec *json.Decoder, data []byte) bool {
	if !openObject(dec) {
		return false
	}
	sawLatest := false
	for dec.More() {
		key, ok := keyOf(dec)
		switch {
		case !ok:
			return false
		case key == "latest" && !sawLatest:
			sawLatest = true
			start := dec.InputOffset()
			if dec.Decode(&c.Deployment) != nil {
				return false
			}
			// From the end of the key to the end of the value: the colon and blanks before it.
			c.Latest = bytes.TrimLeft(data[start:dec.InputOffset()], " \t\r\n:")
		case strings.EqualFold(key, "latest"):
			return false
		default:
			// The stack's name and its config, which status does not read.
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return false
			}
		}
	}
	return closeObject(dec)
}

// openObject reads a '{' token, closeObject a '}'; keyOf an object's key.
func openObject(dec *json.Decoder) bool {
	t, err := dec.Token()
	return err == nil && t == json.Delim('{')
}

func closeObject(dec *json.Decoder) bool {
	t, err := dec.Token()
	return err == nil && t == json.Delim('}')
}

func keyOf(dec *json.Decoder) (string, bool) {
	t, err := dec.Token()
	key, ok := t.(string)
	return key, err == nil && ok
}

// Latest is a state file's latest deployment as written, decoded as the Pulumi CLI decodes it
// (json.Unmarshal of the versioned checkpoint, then of the checkpoint): for a file OnePass does
// not read. err says that it does not parse (a file cut short by a full disk); version, when it
// is not 3, that it is of a version this does not read (latest is nil then).
func Latest(data []byte) (latest json.RawMessage, version int, err error) {
	var versioned apitype.VersionedCheckpoint
	if err := json.Unmarshal(data, &versioned); err != nil {
		return nil, 0, err
	}
	if versioned.Version != 3 {
		return nil, versioned.Version, nil
	}
	var v3 struct {
		Latest json.RawMessage `json:"latest"`
	}
	if err := json.Unmarshal(versioned.Checkpoint, &v3); err != nil {
		return nil, 3, err
	}
	return v3.Latest, 3, nil
}
