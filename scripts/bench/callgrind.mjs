// The instructions of one callgrind dump, split by who ran them: V8's memory management, its
// compilers, and the rest (the work of the calls themselves, and of the gateway's timers).
// Reads the format callgrind writes (https://valgrind.org/docs/manual/cl-format.html): each
// function's own cost lines follow its `fn=` line; the line after `calls=` is the callee's
// inclusive cost, which is not the caller's own and is skipped.

/**
 * Node options of a gateway run under callgrind. Callgrind runs it 20 to 50 times slower, which V8
 * reads as a process allocating little per millisecond: its memory reducer then starts full
 * collections (two at a time) that an unslowed gateway does not make, falling in whichever batch of
 * calls is running. Without background threads, compilation and marking also happen at points the
 * work decides, not the threads' timing. Both apply to every target and revision alike.
 */
export const CALLGRIND_NODE_ARGS = ["--no-memory-reducer", "--single-threaded"];

/**
 * V8's memory management: the collector's scavenges, marking (concurrent too), sweeping,
 * evacuation and pointer updating, bytecode flushing, and the allocator's slow paths (free lists,
 * linear allocation areas), which run in proportion to the bytes allocated, not to any one call.
 */
const GC =
  /Scaveng|Marking|Marker|Sweep|heap::|Heap::|Evacuat|cppgc|Remembered|SlotSet|PageMetadata|IteratePointers|SizeFromMap|MinorMS|Compactor|GCTracer|WeakObjects|EphemeronTable|MemoryChunk|LargeObjectSpace|PagedSpace|SemiSpace|NewSpace|RelocIterator|VisitRelocInfo|FlushedBytecode|FreeList|ObjectCache|TableCleaner|PointersUpdating|Lab\(|LinearAllocationArea|AllocatorPolicy|AllocateRawSlow|UsedInstanceSize/;
/** V8's compilers and parser: Ignition's bytecode, Sparkplug, Maglev, Turbofan/Turboshaft. */
const COMPILER =
  /compiler::|maglev::|Maglev|turboshaft|Turboshaft|Parser<|::Parser|ParserBase|Scanner|interpreter::Bytecode|Zone::|baseline::|Compiler::|OptimizedCompilationJob|CodeGenerator|Assembler/;

/**
 * The self cost of every function in a callgrind dump, summed into `gc`, `compiler` and `rest`
 * (instructions), with the dump's `total`.
 */
export function splitCosts(text) {
  const names = new Map();
  const sums = { gc: 0, compiler: 0, rest: 0 };
  let kind = "rest";
  let skipNext = false;
  for (const line of text.split("\n")) {
    if (skipNext) {
      skipNext = false;
      continue;
    }
    const first = line.charCodeAt(0);
    // A cost line: a position (a number, `+n`, `-n` or `*`), then the event counts (Ir only).
    if ((first >= 48 && first <= 57) || first === 43 || first === 45 || first === 42) {
      const space = line.indexOf(" ");
      if (space > 0) sums[kind] += Number(line.slice(space + 1));
      continue;
    }
    if (line.startsWith("calls=")) {
      skipNext = true;
    } else if (line.startsWith("fn=")) {
      kind = classify(functionName(line.slice(3), names));
    } else if (line.startsWith("cfn=")) {
      functionName(line.slice(4), names);
    }
  }
  return { ...sums, total: sums.gc + sums.compiler + sums.rest };
}

/** `(id) name` defines a compressed name, `(id)` uses one, a plain name is itself. */
function functionName(spec, names) {
  const match = /^\((\d+)\)(?: (.*))?$/.exec(spec);
  if (!match) return spec;
  if (match[2] !== undefined) names.set(match[1], match[2]);
  return names.get(match[1]) ?? "";
}

function classify(name) {
  if (GC.test(name)) return "gc";
  if (COMPILER.test(name)) return "compiler";
  return "rest";
}
