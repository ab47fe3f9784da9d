"""The loop search the house checks share (layers.sh, norecursion.sh,
files.sh): a graph is a dict from a node to the set of nodes it reaches."""
import sys


def find_loop(graph, fail):
    """Depth-first search; on the first cycle exits with fail % the loop
    ("a -> b -> a").  The graphs are small: Python's recursion is enough."""
    state, stack = {}, []

    def visit(m):
        state[m] = 'open'
        stack.append(m)
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 'open':
                loop = stack[stack.index(d):] + [d]
                sys.exit(fail % ' -> '.join(loop))
            if d not in state:
                visit(d)
        stack.pop()
        state[m] = 'done'
    for m in sorted(graph):
        if m not in state:
            visit(m)
