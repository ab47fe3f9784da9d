"""Reference model of one worker's subtree of a casefoldfs mount.

The model is what Linux ext4 with casefold would hold after the same
operations: directories keyed by the folded name when casefolded (+F) and by
the exact name otherwise, every entry stored under the spelling that created
it.  Folding itself is never done here: the fold key of every spelling the
stress test can use comes from the casefold CLI (`casefold fold --hex`).

apply(op, args) returns the outcome Linux gives ("OK" or an errno name, and
for reads the bytes expected) and changes the model only when the operation
succeeds.  No I/O: stress.py performs the same operation on the mount and
compares.
"""
import os
import itertools

_ids = itertools.count()


class Node:
    """A file ('f'), directory ('d') or symlink ('l'); hard links share one."""

    def __init__(self, kind, casefold=False, data=b"", target=None):
        self.id = next(_ids)
        self.kind = kind
        self.data = data            # file contents
        self.target = target        # symlink target
        self.xattrs = {}            # user.* extended attributes
        self.casefold = casefold    # directories: +F
        self.entries = {}           # directories: key -> (stored name, Node)


# Symlink targets never resolve: following one is ENOENT, whatever it names.
SYMLINK_TARGET = "/nonexistent-casefold-stress/target"


class Err(Exception):
    def __init__(self, name):
        super().__init__(name)
        self.name = name


# Issue 21's options change two rules (fs/tree/CLIENTS.md).
MOUNT_OPTS = os.environ.get("CF_MOUNT_OPTS", "")
CASE_RENAME = "case_rename" in MOUNT_OPTS
CASEFOLD_NONEMPTY = "casefold_nonempty" in MOUNT_OPTS


class Model:
    def __init__(self, fold):
        self.fold = fold            # spelling -> fold key (from the CLI)
        self.root = Node("d")
        self.root.entries["ci"] = ("ci", Node("d", casefold=True))
        self.root.entries["cs"] = ("cs", Node("d"))

    def key(self, d, name):
        return self.fold[name] if d.casefold else name

    def lookup(self, d, name):
        return d.entries.get(self.key(d, name))

    def parent(self, path):
        """The directory holding the last component of path."""
        d = self.root
        for comp in path[:-1]:
            e = self.lookup(d, comp)
            if e is None or e[1].kind == "l":
                raise Err("ENOENT")
            if e[1].kind != "d":
                raise Err("ENOTDIR")
            d = e[1]
        return d

    def add(self, d, name, node):
        d.entries[self.key(d, name)] = (name, node)

    def remove(self, d, name):
        del d.entries[self.key(d, name)]

    def apply(self, op, args):
        try:
            return getattr(self, "op_" + op)(*args)
        except Err as e:
            return e.name, None

    # Each op_* mirrors one system call (or the short sequence stress.py
    # makes), checks in the order the kernel does, and returns (outcome, info).

    def op_create(self, path, rec):      # open O_CREAT|O_APPEND|O_NOFOLLOW, write
        d = self.parent(path)
        e = self.lookup(d, path[-1])
        if e is None:
            self.add(d, path[-1], Node("f", data=rec))
        elif e[1].kind == "d":
            raise Err("EISDIR")
        elif e[1].kind == "l":
            raise Err("ELOOP")
        else:
            e[1].data += rec
        return "OK", None

    def op_excl(self, path, rec):        # open O_CREAT|O_EXCL, write
        d = self.parent(path)
        if self.lookup(d, path[-1]):
            raise Err("EEXIST")
        self.add(d, path[-1], Node("f", data=rec))
        return "OK", None

    def op_write(self, path, rec):       # open O_TRUNC|O_NOFOLLOW, write, fsync
        f = self.existing(path)
        if f.kind == "d":
            raise Err("EISDIR")
        if f.kind == "l":
            raise Err("ELOOP")
        f.data = rec
        return "OK", None

    def op_read(self, path):             # open O_RDONLY|O_NOFOLLOW, read
        f = self.existing(path)
        if f.kind == "d":
            raise Err("EISDIR")
        if f.kind == "l":
            raise Err("ELOOP")
        return "OK", f.data

    def op_mkdir(self, path, inherit=True):
        d = self.parent(path)
        if self.lookup(d, path[-1]):
            raise Err("EEXIST")
        # inherit=False: the state a crash between mkdir and the flag leaves.
        self.add(d, path[-1], Node("d", casefold=d.casefold and inherit))
        return "OK", None

    def op_symlink(self, path):
        d = self.parent(path)
        if self.lookup(d, path[-1]):
            raise Err("EEXIST")
        self.add(d, path[-1], Node("l", target=SYMLINK_TARGET))
        return "OK", None

    def op_unlink(self, path):
        d = self.parent(path)
        e = self.lookup(d, path[-1])
        if e is None:
            raise Err("ENOENT")
        if e[1].kind == "d":
            raise Err("EISDIR")
        self.remove(d, path[-1])
        return "OK", None

    def op_rmdir(self, path):
        d = self.parent(path)
        e = self.lookup(d, path[-1])
        if e is None:
            raise Err("ENOENT")
        if e[1].kind != "d":
            raise Err("ENOTDIR")
        if e[1].entries:
            raise Err("ENOTEMPTY")
        self.remove(d, path[-1])
        return "OK", None

    def op_link(self, src, dst):         # linkat without AT_SYMLINK_FOLLOW
        node = self.existing(src)
        d = self.parent(dst)
        if self.lookup(d, dst[-1]):
            raise Err("EEXIST")
        if node.kind == "d":
            raise Err("EPERM")
        self.add(d, dst[-1], node)
        return "OK", None

    def op_rename(self, src, dst):
        """Both at depth one, so neither can be the other's ancestor."""
        sd = self.parent(src)
        se = self.lookup(sd, src[-1])
        if se is None:
            raise Err("ENOENT")
        dd = self.parent(dst)
        de = self.lookup(dd, dst[-1])
        node = se[1]
        if de is None:
            self.remove(sd, src[-1])
            self.add(dd, dst[-1], node)
            return "OK", None
        target = de[1]
        if target is node:               # same inode: Linux does nothing,
            # but respell under case_rename (not onto the very same path:
            # one dentry, which the kernel answers itself)
            if CASE_RENAME and sd is dd and de is se and node.kind != "d" and src[-1] != dst[-1]:
                dd.entries[self.key(dd, dst[-1])] = (dst[-1], node)
            return "OK", None
        if node.kind == "d" and target.kind != "d":
            raise Err("ENOTDIR")
        if node.kind != "d" and target.kind == "d":
            raise Err("EISDIR")
        if target.kind == "d" and target.entries:
            raise Err("ENOTEMPTY")
        # The target keeps its stored spelling, now naming the source's file.
        self.remove(sd, src[-1])
        dd.entries[self.key(dd, dst[-1])] = (de[0], node)
        return "OK", None

    def op_setxattr(self, path, value):  # lsetxattr user.k
        node = self.existing(path)
        if node.kind == "l":
            raise Err("EPERM")           # user.* only on files and directories
        node.xattrs["user.k"] = value
        return "OK", None

    def op_chattr(self, path, on):       # FS_IOC_GETFLAGS, then SETFLAGS +F/-F
        node = self.existing(path)
        if node.kind == "l":
            raise Err("ELOOP")           # opened with O_NOFOLLOW
        was = node.kind == "d" and node.casefold
        if on != was:
            if node.kind != "d":
                return "EOPNOTSUPP", was
            if node.entries and not (on and CASEFOLD_NONEMPTY):
                return "ENOTEMPTY", was
            if node.entries:             # +F where no two names fold equal
                keys = {self.fold[name]: (name, n) for name, n in node.entries.values()}
                if len(keys) < len(node.entries):
                    return "ENOTEMPTY", was
                node.entries = keys
            node.casefold = on
        return "OK", was

    def existing(self, path):
        e = self.lookup(self.parent(path), path[-1])
        if e is None:
            raise Err("ENOENT")
        return e[1]
