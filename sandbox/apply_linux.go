//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// MinABI is the oldest Landlock ABI the sandbox uses: ABI 3 (Linux 6.2)
// controls truncate(2), without which a task could empty any file its user
// owns; ABI 2 allows renames and links between allowed folders.
const MinABI = 3

// rulesetAttr is struct landlock_ruleset_attr as ABI 6 and 7 define it (the
// x/sys type has fields later kernels add; a kernel that does not know them
// refuses the larger size).
type rulesetAttr struct {
	handledFS, handledNet, scoped uint64
}

// LandlockABI returns the kernel's Landlock ABI version, or why there is
// none.
func LandlockABI() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	switch errno {
	case 0:
		return int(v), nil
	case unix.ENOSYS:
		return 0, errors.New("this kernel has no Landlock (Linux 5.13 or later with CONFIG_SECURITY_LANDLOCK is needed)")
	case unix.EOPNOTSUPP:
		return 0, errors.New("this kernel does not enable Landlock in its LSM list (boot parameter lsm=…,landlock)")
	}
	return 0, fmt.Errorf("ask the kernel for its Landlock version: %w", errno)
}

// Check reports why p cannot be applied here, or nil. The network
// namespace is checked by Probe, which needs to start a process.
func Check(p Policy) error {
	if p.Mode == Off {
		return nil
	}
	abi, err := LandlockABI()
	if err != nil {
		return err
	}
	if abi < MinABI {
		return fmt.Errorf("this kernel's Landlock ABI is %d; the sandbox needs %d (Linux 6.2) to control every kind of write", abi, MinABI)
	}
	return nil
}

// SetProcAttr makes the process attr starts enter a new network namespace
// when p asks for network off or loopback: with a new user namespace when
// this process is not root (the user keeps their own uid and gid in it, and
// the helper gets CAP_NET_ADMIN in it to bring the loopback up; Apply drops
// it before the shell runs).
//
// A confined task also gets a mount namespace of its own, where the helper
// makes the filesystem read-only outside the writable folders: as root
// directly, else inside that user namespace (or one made for it when the
// network is on and user namespaces work here).
func SetProcAttr(attr *syscall.SysProcAttr, p Policy) {
	mounts := p.Mode != Off
	if p.Network == NetOn && (!mounts || (os.Geteuid() != 0 && !userNamespaces())) {
		return
	}
	if p.Network != NetOn {
		attr.Cloneflags |= syscall.CLONE_NEWNET
	}
	if mounts {
		attr.Cloneflags |= syscall.CLONE_NEWNS
	}
	if os.Geteuid() == 0 {
		return
	}
	attr.Cloneflags |= syscall.CLONE_NEWUSER
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}
	attr.GidMappingsEnableSetgroups = false
	if p.Network == NetLoopback {
		attr.AmbientCaps = append(attr.AmbientCaps, unix.CAP_NET_ADMIN)
	}
	if mounts {
		// For confineMounts, in the task's own namespaces only; Apply
		// drops it before the shell runs.
		attr.AmbientCaps = append(attr.AmbientCaps, unix.CAP_SYS_ADMIN)
	}
}

// userNamespaces reports whether this process can start one in a user
// namespace of its own (asked once).
var userNamespaces = sync.OnceValue(func() bool {
	cmd := exec.Command("/proc/self/exe", "--no-such-flag")
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}},
	}
	// Any exit status will do: the question is whether it started.
	err := cmd.Run()
	var exit *exec.ExitError
	return err == nil || errors.As(err, &exit)
})

// Probe starts argv (a program that exits 0 at once) the way SetProcAttr
// starts a task with network off, and reports why that fails, or nil.
func Probe(argv []string) error {
	if len(argv) == 0 {
		return errors.New("no program to probe the network namespace with")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	SetProcAttr(cmd.SysProcAttr, Policy{Network: NetLoopback})
	if err := cmd.Run(); err != nil {
		if os.Geteuid() != 0 {
			return fmt.Errorf("a network namespace cannot be made here (%v): unprivileged user namespaces are off (kernel.unprivileged_userns_clone, user.max_user_namespaces or an AppArmor restriction)", err)
		}
		return fmt.Errorf("a network namespace cannot be made here: %v", err)
	}
	return nil
}

func hostNet() uint64 { return nsInode("net") }

func hostMnt() uint64 { return nsInode("mnt") }

// nsInode identifies this process's namespace of a kind (net, mnt).
func nsInode(kind string) uint64 {
	var st unix.Stat_t
	if unix.Stat("/proc/self/ns/"+kind, &st) != nil {
		return 0
	}
	return st.Ino
}

// writableWithout reports whether this (unconfined) process could write
// path, or create it in its folder.
func writableWithout(path string) bool {
	if unix.Access(path, unix.W_OK) == nil {
		return true
	}
	if _, err := os.Lstat(path); err == nil {
		return false
	}
	return unix.Access(filepath.Dir(path), unix.W_OK) == nil
}

// Write rights the sandbox handles. Reading, executing, reading folders and
// device ioctls are not handled, so they stay as they are. Making device
// nodes is handled and never allowed, not even in the workspace: a block
// device made there would write wherever its disk is.
const (
	fileWrite = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE
	dirWrite  = fileWrite | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM | unix.LANDLOCK_ACCESS_FS_REFER
	handledFS = dirWrite | unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK
)

// keptCaps are the capabilities a confined task keeps (when it runs as root
// at all): Docker's default set, less CAP_MKNOD, CAP_SETFCAP and
// CAP_SETPCAP. Everything else — CAP_SYS_ADMIN (TIOCSTI into another
// terminal, mounts), CAP_LINUX_IMMUTABLE (chattr +i), CAP_SYS_MODULE,
// CAP_SYS_RAWIO, CAP_NET_ADMIN, CAP_SYS_PTRACE and the rest — leaves the
// bounding set before the shell runs, so no process of the task gets it
// back, setuid programs included.
var keptCaps = []uintptr{
	unix.CAP_CHOWN, unix.CAP_DAC_OVERRIDE, unix.CAP_FOWNER, unix.CAP_FSETID, unix.CAP_KILL,
	unix.CAP_SETGID, unix.CAP_SETUID, unix.CAP_NET_BIND_SERVICE, unix.CAP_NET_RAW,
	unix.CAP_SYS_CHROOT, unix.CAP_AUDIT_WRITE,
}

// dropCaps removes every capability but keptCaps from the bounding set
// (which needs CAP_SETPCAP: a task without it has none to drop) and from
// the ambient set.
func dropCaps() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("drop the ambient capabilities: %w", err)
	}
	for c := uintptr(0); c <= unix.CAP_LAST_CAP; c++ {
		if slices.Contains(keptCaps, c) {
			continue
		}
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0); err != nil {
			if errors.Is(err, unix.EPERM) {
				return nil // no CAP_SETPCAP: nothing to drop
			}
			if errors.Is(err, unix.EINVAL) {
				break // past the kernel's last capability
			}
			return fmt.Errorf("drop capability %d: %w", c, err)
		}
	}
	return nil
}

// devices stay writable in every confined mode: the terminal, the null
// and random devices.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts"}

// Apply confines the calling thread, which then executes the task's shell,
// to the policy in spec: in a network namespace (entered at the start, see
// SetProcAttr) it brings the loopback up for NetLoopback and drops the
// capability it used; it then restricts writes with Landlock and scopes
// signals to the task. It must run on a locked OS thread, and the exec must
// follow on that thread.
func Apply(spec string) error {
	p, err := ParseSpec(spec)
	if err != nil {
		return err
	}
	if p.Network != NetOn {
		if err := confineNetwork(p); err != nil {
			return err
		}
	}
	if p.Mode == Off {
		return nil
	}
	if err := confineMounts(p); err != nil {
		return err
	}
	return confineWrites(p)
}

// confineMounts makes every mount read-only, then the writable folders
// writable again through binds of themselves, and p.ReadOnly read-only
// inside them — in the task's own mount namespace only (SetProcAttr made
// it; a task started without one keeps the host's mounts, confined by
// Landlock alone). Landlock has no right for metadata: this is what keeps
// chmod, chown, utimes, xattrs and chattr off the files outside.
func confineMounts(p Policy) error {
	if now := hostMnt(); now == 0 || p.HostMnt == 0 || now == p.HostMnt {
		return nil
	}
	// The working folder was entered before the binds: enter it again
	// afterwards, through them, or it would stay on the read-only mount.
	wd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("find the task's folder: %w", err)
	}
	defer unix.Chdir(wd)
	if err := unix.Mount("none", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
			// A user namespace without the right to mount (AppArmor's
			// restriction of unprivileged user namespaces, say): the
			// task runs confined by Landlock alone, as README says.
			return nil
		}
		return fmt.Errorf("make the task's mounts private: %w", err)
	}
	err = unix.MountSetattr(-1, "/", unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
	if errors.Is(err, unix.ENOSYS) {
		return nil // before Linux 5.12: Landlock alone
	}
	if err != nil {
		return fmt.Errorf("make the filesystem read-only for the task: %w", err)
	}
	bind := func(path string, attr unix.MountAttr, flags uint) error {
		if err := unix.Mount(path, path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			if errors.Is(err, unix.ENOENT) {
				return nil
			}
			return fmt.Errorf("bind %s for the task: %w", path, err)
		}
		if attr == (unix.MountAttr{}) {
			return nil // as the mount it is on
		}
		if err := unix.MountSetattr(-1, path, flags, &attr); err != nil {
			return fmt.Errorf("set the task's access to %s: %w", path, err)
		}
		return nil
	}
	for _, r := range p.Writable {
		if err := bind(r.Path, unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}, unix.AT_RECURSIVE); err != nil {
			return err
		}
	}
	for _, path := range p.ReadOnly {
		if err := bind(path, unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}, unix.AT_RECURSIVE); err != nil {
			return err
		}
	}
	for _, cache := range p.ModuleCaches {
		// The folders above the modules are bound to themselves, writable:
		// a mount point cannot be renamed or removed, so a task can add
		// modules beside the ones there but cannot move a folder of them
		// aside and put others in its place.
		folders, modules := moduleFolders(cache)
		for _, path := range folders {
			if err := bind(path, unix.MountAttr{}, 0); err != nil {
				return err
			}
		}
		for _, path := range modules {
			if err := bind(path, unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}, unix.AT_RECURSIVE); err != nil {
				return err
			}
		}
	}
	for _, path := range p.Hidden {
		err := unix.Mount("tmpfs", path, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0500")
		if err != nil && !errors.Is(err, unix.ENOENT) {
			return fmt.Errorf("hide %s from the task: %w", path, err)
		}
	}
	return nil
}

func confineNetwork(p Policy) error {
	if now := hostNet(); now == 0 || now == p.HostNet {
		return errors.New("the task did not start in a network namespace of its own, so its network cannot be confined")
	}
	if p.Network == NetLoopback {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("open a socket to set up the loopback: %w", err)
		}
		defer unix.Close(fd)
		ifr, err := unix.NewIfreq("lo")
		if err != nil {
			return err
		}
		ifr.SetUint16(unix.IFF_UP | unix.IFF_RUNNING)
		if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
			return fmt.Errorf("bring the loopback interface up: %w", err)
		}
	}
	// The ambient capability SetProcAttr gave the helper must not reach
	// the shell.
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		return fmt.Errorf("drop the ambient capabilities: %w", err)
	}
	return nil
}

func confineWrites(p Policy) error {
	if err := Check(p); err != nil {
		return err
	}
	abi, _ := LandlockABI()
	attr := rulesetAttr{handledFS: handledFS}
	if abi >= 6 {
		// Signals and abstract Unix sockets reach only processes of the
		// task: an abstract socket has no path for the rules above to
		// judge (a D-Bus bus, X11, a program's private server).
		attr.scoped = unix.LANDLOCK_SCOPE_SIGNAL | unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
	}
	size := unsafe.Sizeof(attr)
	if abi < 6 {
		size = 16 // handled_access_fs and handled_access_net only
	}
	rs, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	runtime.KeepAlive(&attr)
	if errno != 0 {
		return fmt.Errorf("make the Landlock ruleset: %w", errno)
	}
	ruleset := int(rs)
	defer unix.Close(ruleset)
	allow := func(path string, access uint64) error {
		fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			if errors.Is(err, unix.ENOENT) {
				return nil // gone since the policy was made: nothing to allow
			}
			return fmt.Errorf("open %s for its rule: %w", path, err)
		}
		defer unix.Close(fd)
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return fmt.Errorf("stat %s for its rule: %w", path, err)
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			access &= fileWrite
		}
		rule := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}
		_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
		runtime.KeepAlive(&rule)
		if errno != 0 {
			return fmt.Errorf("allow writes in %s: %w", path, errno)
		}
		return nil
	}
	for _, r := range p.Writable {
		if err := allow(r.Path, dirWrite); err != nil {
			return err
		}
	}
	for _, d := range devices {
		if err := allow(d, fileWrite); err != nil {
			return err
		}
	}
	if err := dropCaps(); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(ruleset), 0, 0); errno != 0 {
		return fmt.Errorf("enforce the Landlock ruleset: %w", errno)
	}
	return nil
}

// moduleFolderLimit bounds how many modules of one cache moduleFolders
// lists (each costs the task's start two system calls).
const moduleFolderLimit = 20000

// moduleFolders lists the modules of the Go module cache at root — the
// folders named path@version, outside its download cache (cache/, whose
// archives Go checks against go.sum when it extracts them) — and the
// folders above them, parents before children. Symbolic links are not
// followed.
func moduleFolders(root string) (folders, modules []string) {
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			name := e.Name()
			if !e.IsDir() || (depth == 0 && name == "cache") || len(modules) >= moduleFolderLimit {
				continue
			}
			path := filepath.Join(dir, name)
			if strings.Contains(name, "@") {
				modules = append(modules, path)
			} else if depth < 8 {
				folders = append(folders, path)
				walk(path, depth+1)
			}
		}
	}
	walk(root, 0)
	return folders, modules
}
