package run

import (
	"github.com/openpocket/openpocket/internal/skills"
	"github.com/openpocket/openpocket/stdlib/skillsmod"
)

// SkillLibrary adapts a skills loader to the Lua skills module's library
// port (stdlib never imports internal/...).
func SkillLibrary(l *skills.Loader) skillsmod.Library { return skillLibrary{l} }

type skillLibrary struct{ l *skills.Loader }

func (s skillLibrary) List() []skillsmod.Entry {
	all, _ := s.l.Load()
	out := make([]skillsmod.Entry, 0, len(all))
	for _, sk := range all {
		out = append(out, skillsmod.Entry{Name: sk.Name, Description: sk.Description, Location: sk.Location, Source: sk.Source.String(), Auto: sk.Auto})
	}
	return out
}

func (s skillLibrary) Script(name string) (string, []byte, string, error) {
	sk, err := s.l.Find(name)
	if err != nil {
		return "", nil, "", err
	}
	src, from, err := s.l.Script(sk)
	if err != nil {
		return "", nil, "", err
	}
	return sk.Name, src, from, nil
}
