package autostack

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
)

// readCheckpoint is what a stack's state file says, read in one pass (checkpointOf).
type readCheckpoint struct {
	version int
	// latest is the checkpoint's latest deployment as written (nil when it has none, "null"
	// when it says so), and deployment the same parsed.
	latest     json.RawMessage
	deployment apitype.DeploymentV3
}

// checkpointOf reads a stack's state file (an apitype.VersionedCheckpoint holding a CheckpointV3)
// in one pass: its version and its latest deployment, both as raw bytes and parsed. A status of
// ten thousand stacks parses ten thousand checkpoints, and json.Unmarshal into the versioned
// checkpoint, then into the checkpoint, then into the deployment, goes over each five times.
// ok is false for any file whose reading here might differ from those three decodes' (a key
// twice or in other letter case, a field of another type, a checkpoint of another version, data
// after it, JSON that does not parse): the caller decodes it so, and says what they say.
func checkpointOf(data []byte) (c readCheckpoint, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if !openObject(dec) {
		return readCheckpoint{}, false
	}
	var sawVersion, sawCheckpoint bool
	for dec.More() {
		key, ok := keyOf(dec)
		switch {
		case !ok:
			return readCheckpoint{}, false
		case key == "version" && !sawVersion:
			sawVersion = true
			if dec.Decode(&c.version) != nil {
				return readCheckpoint{}, false
			}
		case key == "checkpoint" && !sawCheckpoint:
			sawCheckpoint = true
			if !c.readLatest(dec, data) {
				return readCheckpoint{}, false
			}
		default:
			// Features, another field, or one of the above twice or in other case: the rare
			// file json.Unmarshal reads.
			return readCheckpoint{}, false
		}
	}
	if !closeObject(dec) {
		return readCheckpoint{}, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return readCheckpoint{}, false
	}
	return c, sawVersion && sawCheckpoint && c.version == 3
}

// readLatest reads the checkpoint object at dec's place, keeping its latest deployment; data is
// the whole input, from which the deployment's raw bytes are cut.
func (c *readCheckpoint) readLatest(dec *json.Decoder, data []byte) bool {
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
			if dec.Decode(&c.deployment) != nil {
				return false
			}
			// From the end of the key to the end of the value: the colon and blanks before it.
			c.latest = bytes.TrimLeft(data[start:dec.InputOffset()], " \t\r\n:")
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
