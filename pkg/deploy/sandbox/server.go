package sandbox

import (
	"encoding/json"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
)

// urlField is the field of sandbox.json holding the cloud id's API URL: "<cloud>ApiUrl".
func urlField(id cloud.ID) string { return string(id) + "ApiUrl" }

// MarshalJSON writes sandbox.json: the process's id as "pid", each cloud's URL as "<cloud>ApiUrl".
func (s Server) MarshalJSON() ([]byte, error) {
	out := map[string]any{"pid": s.PID}
	for id, url := range s.URLs {
		out[urlField(id)] = url
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads sandbox.json as MarshalJSON writes it; a field of no cloud a driver knows
// is left unread, and a cloud's missing field reads "", which check refuses.
func (s *Server) UnmarshalJSON(data []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	s.PID, s.URLs = 0, map[cloud.ID]string{}
	for key, value := range fields {
		if strings.EqualFold(key, "pid") {
			if err := json.Unmarshal(value, &s.PID); err != nil {
				return err
			}
		}
	}
	for _, id := range clouds.IDs() {
		for key, value := range fields {
			if strings.EqualFold(key, urlField(id)) {
				var url string
				if err := json.Unmarshal(value, &url); err != nil {
					return err
				}
				s.URLs[id] = url
			}
		}
	}
	return nil
}
