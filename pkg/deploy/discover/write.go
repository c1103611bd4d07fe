package discover

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/atomicwrite"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/pkg/errors"
)

// ExistError says that files discover would write exist already, so none was written. Each path
// says what it holds when that is another kind than the file discovered.
type ExistError struct {
	Paths []string
}

func (e *ExistError) Error() string {
	return fmt.Sprintf("%s exist; nothing written", strings.Join(e.Paths, ", "))
}

// Written is a file Write wrote: its path, and the kind and cloud id of what it describes.
type Written struct {
	Path, Kind, CloudID string
}

// Write writes the files into dir, none unless it may write them all: a file that exists is
// overwritten only with force. It returns the files written, in order, up to a failure.
func Write(dir string, files []File, force bool) ([]Written, error) {
	if !force {
		var exist []string
		for _, file := range files {
			path := filepath.Join(dir, file.Name)
			if _, err := os.Lstat(path); err == nil {
				exist = append(exist, path+clash(path, file.Kind))
			}
		}
		if len(exist) > 0 {
			return nil, &ExistError{Paths: exist}
		}
	}
	if len(files) > 0 {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, errors.Wrap(err, "create "+dir)
		}
	}
	var written []Written
	for _, file := range files {
		path := filepath.Join(dir, file.Name)
		if err := atomicwrite.File(path, file.Data); err != nil {
			return written, errors.Wrap(err, "write "+path)
		}
		written = append(written, Written{Path: path, Kind: file.Kind, CloudID: file.CloudID})
	}
	return written, nil
}

// CommandLine is the command as the files say they came from: the flags that chose what
// was read, never the folder or anything secret, so that the same account gives the same bytes
// whichever folder they go to.
func (o Options) CommandLine() string {
	line := "clusterplane discover " + o.Cloud
	if o.Region != "" {
		line += " --region " + o.Region
	}
	if o.Cluster != "" {
		line += " --cluster " + o.Cluster
	}
	return line
}

// clash says what an existing file holds when it is another kind than the one discover would
// write there: most often the same name discovered in the other cloud.
func clash(path, kind string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	head, err := stackinput.ReadHead(data)
	if err != nil || head.Kind == "" || head.Kind == kind {
		return ""
	}
	return " (it holds a " + head.Kind + "; the file discovered is a " + kind + " of the same name)"
}
