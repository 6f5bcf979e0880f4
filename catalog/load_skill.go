package catalog

import (
	"bufio"
	"context"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/whale-ls/whale-ls/excerpt"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

//go:embed load_skill.md
var loadSkillDoc string

// Skill is a folder with a SKILL.md whose front matter names and describes it.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Dir         string `json:"dir"` // absolute folder
}

// userSkillFolder is ~/.config/whale/skills, honouring XDG_CONFIG_HOME.
func userSkillFolder() string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "whale", "skills")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".config", "whale", "skills")
	}
	return ""
}

// SkillFolders lists the folders outside the workspace that hold skills and
// so become readable (workspace.Set.SetReadOnly): the user's skill folder
// and the skills.paths setting.
func SkillFolders(s settings.Settings) []string {
	var out []string
	if u := userSkillFolder(); u != "" {
		if fi, err := os.Stat(u); err == nil && fi.IsDir() {
			out = append(out, u)
		}
	}
	return append(out, s.Skills.Paths...)
}

// discoverSkills finds every skill: .whale/skills/* in each workspace root,
// then the user's folder, then skills.paths (each either a skill or a folder
// of skills). The first skill of a name wins.
func discoverSkills(ws *workspace.Set, cfg settings.Settings) []Skill {
	var parents []string
	for _, r := range ws.Roots() {
		parents = append(parents, filepath.Join(r.Real, ".whale", "skills"))
	}
	if u := userSkillFolder(); u != "" {
		parents = append(parents, u)
	}
	for _, p := range cfg.Skills.Paths {
		if strings.HasPrefix(p, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				p = filepath.Join(home, p[2:])
			}
		}
		parents = append(parents, p)
	}
	seen := map[string]bool{}
	var skills []Skill
	add := func(dir string) {
		if s, ok := readSkill(dir); ok && !seen[s.Name] {
			seen[s.Name] = true
			skills = append(skills, s)
		}
	}
	for _, parent := range parents {
		add(parent) // a skill folder given directly
		entries, err := os.ReadDir(parent)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.IsDir() {
				add(filepath.Join(parent, e.Name()))
			}
		}
	}
	sort.SliceStable(skills, func(i, j int) bool { return skills[i].Name < skills[j].Name })
	return skills
}

// readSkill reads dir/SKILL.md's front matter.
func readSkill(dir string) (Skill, bool) {
	f, err := os.Open(filepath.Join(dir, "SKILL.md"))
	if err != nil {
		return Skill{}, false
	}
	defer f.Close()
	s := Skill{Name: filepath.Base(dir), Dir: dir}
	sc := bufio.NewScanner(f)
	if sc.Scan() && strings.TrimSpace(sc.Text()) == "---" {
		for sc.Scan() {
			line := sc.Text()
			if strings.TrimSpace(line) == "---" {
				break
			}
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			v = strings.Trim(strings.TrimSpace(v), `"'`)
			switch strings.TrimSpace(k) {
			case "name":
				if v != "" {
					s.Name = v
				}
			case "description":
				s.Description = v
			}
		}
	}
	return s, true
}

type loadSkillInput struct {
	Name string `json:"name"`
}

// LoadSkill is load_skill: the instructions of a skill found in the
// workspace's .whale/skills, the user's skill folder or skills.paths. Its
// description lists the skills found when it is built.
func LoadSkill(ws *workspace.Set, cfg func() settings.Settings) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name:        "load_skill",
		Description: loadSkillDescription(discoverSkills(ws, cfg())),
		ReadOnly:    true,
		Group:       toolbridge.GroupFiles,
		InputSchema: toolbridge.Object([]string{"name"}, map[string]*toolbridge.Schema{
			"name": toolbridge.Str("Name of the skill, as listed in this description."),
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in loadSkillInput) (toolbridge.Result, error) {
		all := discoverSkills(ws, cfg())
		var names []string
		for _, s := range all {
			if s.Name == in.Name {
				return renderSkill(s)
			}
			names = append(names, s.Name)
		}
		if len(names) == 0 {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeNotFound, "there is no skill named %s, and no skills are installed (folders with a SKILL.md under .whale/skills/ in the workspace, %s, or the skills.paths setting); continue without it", excerpt.Quote(in.Name), userSkillFolder())
		}
		return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeNotFound, "there is no skill named %s; the skills are: %s; call load_skill with one of them", excerpt.Quote(in.Name), strings.Join(names, ", "))
	})
}

// loadSkillDescription is load_skill's description with the skills found,
// within MaxDescriptionBytes: when their lines do not fit, every skill's
// description is cut to the same length, the longest that fits; when that
// would leave less than skillAboutMin bytes, as many skills as fit are
// listed and the last line counts the others (load_skill with an unknown
// name lists every name).
func loadSkillDescription(skills []Skill) string {
	head := strings.TrimRight(loadSkillDoc, "\n")
	if len(skills) == 0 {
		return head + "\n\nNo skills were found when this session started."
	}
	head += "\n\nSkills available in this session:\n"
	list := func(limit int) string {
		var b strings.Builder
		for _, s := range skills {
			b.WriteString(skillLine(s, limit))
		}
		return b.String()
	}
	longest := 0
	for _, s := range skills {
		longest = max(longest, len(s.Description))
	}
	for limit := longest; limit >= skillAboutMin || limit == longest; limit -= max(1, limit/8) {
		if l := list(limit); len(head)+len(l) <= toolbridge.MaxDescriptionBytes {
			return head + l
		}
	}
	var b strings.Builder
	for i, s := range skills {
		line := skillLine(s, skillAboutMin)
		rest := fmt.Sprintf("- and %d more; load_skill with an unknown name lists them all\n", len(skills)-i)
		if len(head)+b.Len()+len(line)+len(rest) > toolbridge.MaxDescriptionBytes {
			b.WriteString(rest)
			break
		}
		b.WriteString(line)
	}
	return head + b.String()
}

// skillAboutMin is the shortest a skill's description is cut to in
// load_skill's description.
const skillAboutMin = 40

// skillLine is a skill's line in load_skill's description, its description
// cut to at most limit bytes.
func skillLine(s Skill, limit int) string {
	about := s.Description
	if len(about) > limit {
		about, _ = cutText(about, max(0, limit-len("…")))
		about += "…"
	}
	return "- " + s.Name + ": " + about + "\n"
}

// renderSkill returns SKILL.md and the list of the skill's other files, which
// read_file can open.
func renderSkill(s Skill) (toolbridge.Result, error) {
	body, err := os.ReadFile(filepath.Join(s.Dir, "SKILL.md"))
	if err != nil {
		return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeNotFound, "skill %s cannot be read (%v); continue without it", s.Name, err)
	}
	var files []string
	filepath.WalkDir(s.Dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || len(files) >= 200 {
			return filepath.SkipDir
		}
		if !e.IsDir() && filepath.Base(p) != "SKILL.md" {
			rel, _ := filepath.Rel(s.Dir, p)
			files = append(files, rel)
		}
		return nil
	})
	var b strings.Builder
	fmt.Fprintf(&b, "Skill %s (folder %s)\n\n%s", s.Name, s.Dir, body)
	if len(files) > 0 {
		fmt.Fprintf(&b, "\n\nOther files of this skill (open them with read_file and the folder above):\n- %s", strings.Join(files, "\n- "))
	}
	return toolbridge.Result{Text: b.String(), Data: map[string]any{"name": s.Name, "dir": s.Dir, "files": files}}, nil
}
