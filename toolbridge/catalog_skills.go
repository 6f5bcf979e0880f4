package toolbridge

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

// skillFolders lists the folders outside the workspace that hold skills and
// so become readable: the user's skill folder and the skills.paths setting.
func skillFolders(ws *workspace.Set, s Settings) []string {
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
func discoverSkills(d *Deps) []Skill {
	var parents []string
	for _, r := range d.Workspace.Roots() {
		parents = append(parents, filepath.Join(r.Real, ".whale", "skills"))
	}
	if u := userSkillFolder(); u != "" {
		parents = append(parents, u)
	}
	for _, p := range d.Settings().Skills.Paths {
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

func loadSkillTool(d *Deps) Tool {
	desc := loadSkillDoc
	skills := discoverSkills(d)
	if len(skills) == 0 {
		desc += "\n\nNo skills were found when this session started."
	} else {
		desc += "\n\nSkills available in this session:\n"
		for _, s := range skills {
			desc += fmt.Sprintf("- %s: %s\n", s.Name, s.Description)
		}
	}
	spec := Spec{
		Name:        "load_skill",
		Description: desc,
		ReadOnly:    true,
		Group:       GroupFiles,
		InputSchema: Object([]string{"name"}, map[string]*Schema{
			"name": Str("Name of the skill, as listed in this description."),
		}),
	}
	return Define(spec, func(ctx context.Context, in loadSkillInput) (Result, error) {
		all := discoverSkills(d)
		var names []string
		for _, s := range all {
			if s.Name == in.Name {
				return renderSkill(s)
			}
			names = append(names, s.Name)
		}
		if len(names) == 0 {
			return Result{}, Fail(CodeNotFound, "there is no skill named %s, and no skills are installed (folders with a SKILL.md under .whale/skills/ in the workspace, %s, or the skills.paths setting); continue without it", excerpt.Quote(in.Name), userSkillFolder())
		}
		return Result{}, Fail(CodeNotFound, "there is no skill named %s; the skills are: %s; call load_skill with one of them", excerpt.Quote(in.Name), strings.Join(names, ", "))
	})
}

// renderSkill returns SKILL.md and the list of the skill's other files, which
// read_file can open.
func renderSkill(s Skill) (Result, error) {
	body, err := os.ReadFile(filepath.Join(s.Dir, "SKILL.md"))
	if err != nil {
		return Result{}, Fail(CodeNotFound, "skill %s cannot be read (%v); continue without it", s.Name, err)
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
	return Result{Text: b.String(), Data: map[string]any{"name": s.Name, "dir": s.Dir, "files": files}}, nil
}
