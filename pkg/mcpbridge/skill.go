package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"path"
	"strings"

	"github.com/cadrehq/cadre/pkg/skill"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// SkillURI returns the URI under which AddSkills serves a skill's file: skill://<name>/<file>,
// with file "SKILL.md" for the skill itself, each name of the path escaped as a URI's path
// segment is (a space as %20).
func SkillURI(name, file string) string {
	segments := strings.Split(file, "/")
	for i, s := range segments {
		segments[i] = url.PathEscape(s)
	}
	return "skill://" + url.PathEscape(name) + "/" + strings.Join(segments, "/")
}

// AddSkills serves skills (see package skill; the ones given to assistant.WithSkills, say) as
// MCP resources, so that MCP clients can read them: each skill's SKILL.md as written, at
// SkillURI(name, "SKILL.md") and described by the skill's description, and each file the skill
// lists (Skill.Resources) at SkillURI(name, path), read when a client asks through
// Skill.ReadResource — confined to the skill's folder, text only. Nothing is run.
//
// AddSkills returns an error, and registers nothing, when s or a skill is nil, when two skills
// share a name, or when s already has a resource at one of the URIs.
func AddSkills(s *server.MCPServer, skills ...*skill.Skill) error {
	if s == nil {
		return errors.New("mcpbridge.AddSkills: the server is nil")
	}
	type entry struct {
		res  mcp.Resource
		read func() (string, error)
	}
	var entries []entry
	seen := map[string]bool{}
	for i, sk := range skills {
		if sk == nil || sk.Name == "" {
			return fmt.Errorf("mcpbridge.AddSkills: skill %d is nil or has no name", i)
		}
		if seen[sk.Name] {
			return fmt.Errorf("mcpbridge.AddSkills: two skills are named %q", sk.Name)
		}
		seen[sk.Name] = true
		entries = append(entries, entry{
			res: mcp.NewResource(SkillURI(sk.Name, skill.FileName), sk.Name,
				mcp.WithResourceDescription(sk.Description), mcp.WithMIMEType("text/markdown")),
			read: func() (string, error) { return sk.Text(), nil },
		})
		for _, f := range sk.Resources() {
			entries = append(entries, entry{
				res: mcp.NewResource(SkillURI(sk.Name, f), sk.Name+"/"+f,
					mcp.WithResourceDescription(fmt.Sprintf("A file of the skill %q.", sk.Name)), mcp.WithMIMEType(textType(f))),
				read: func() (string, error) { return sk.ReadResource(f) },
			})
		}
	}
	existing := s.ListResources()
	uris := make(map[string]bool, len(entries))
	for _, e := range entries {
		if _, dup := existing[e.res.URI]; dup {
			return fmt.Errorf("mcpbridge.AddSkills: the server already has a resource at %s", e.res.URI)
		}
		if uris[e.res.URI] {
			return fmt.Errorf("mcpbridge.AddSkills: two files would be served at %s: rename a skill or a file", e.res.URI)
		}
		uris[e.res.URI] = true
	}
	for _, e := range entries {
		handle := func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			text, err := e.read()
			if err != nil {
				return nil, err
			}
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: e.res.URI, MIMEType: e.res.MIMEType, Text: text}}, nil
		}
		if err := register("resource", e.res.URI, func() { s.AddResource(e.res, handle) }); err != nil {
			return err
		}
	}
	return nil
}

// textType is the MIME type of a skill's text file, by its extension; text/plain when the
// extension says nothing of text.
func textType(file string) string {
	switch ext := path.Ext(file); ext {
	case ".md", ".markdown":
		return "text/markdown"
	case "":
		return "text/plain"
	default:
		if t := mime.TypeByExtension(ext); strings.HasPrefix(t, "text/") || strings.HasSuffix(t, "json") || strings.HasSuffix(t, "xml") {
			return t
		}
		return "text/plain"
	}
}
