//! Hostile pickles: every kind of global an attack needs is refused by name and nothing runs
//! (proved with marker files that the same bytes *do* create under Python's own unpickler);
//! memo bombs, deep nesting, truncation at every byte and opcodes on wrong stacks are errors,
//! never panics or large allocations.

use npy_test_support::cpu::CpuTimer;
use std::path::Path;
use std::process::Command;

use npy_core::{Error, Header, NpyReader};
use npy_pickle::{
    loads, loads_with, PickleCodec, PickleError, PickleLimits, PyObject, MAX_PICKLE_DEPTH,
    PICKLE_BUDGET,
};

// ---------------------------------------------------------------------------------------------
// a tiny pickle assembler (protocol 2 opcodes unless said otherwise)
// ---------------------------------------------------------------------------------------------

fn global(module: &str, name: &str) -> Vec<u8> {
    format!("c{module}\n{name}\n").into_bytes()
}

fn stack_global(module: &str, name: &str) -> Vec<u8> {
    let mut o = ustr(module);
    o.extend(ustr(name));
    o.push(0x93);
    o
}

fn ustr(s: &str) -> Vec<u8> {
    let mut o = vec![b'X'];
    o.extend_from_slice(&(s.len() as u32).to_le_bytes());
    o.extend_from_slice(s.as_bytes());
    o
}

/// `callable(*args)`: MARK args TUPLE REDUCE.
fn call(callable: Vec<u8>, args: &[Vec<u8>]) -> Vec<u8> {
    let mut o = callable;
    o.push(b'(');
    for a in args {
        o.extend_from_slice(a);
    }
    o.extend_from_slice(b"tR");
    o
}

fn pickle(proto: u8, body: Vec<u8>) -> Vec<u8> {
    let mut o = vec![0x80, proto];
    o.extend(body);
    o.push(b'.');
    o
}

fn npy_with(data: &[u8]) -> Vec<u8> {
    let mut out = Header::new("|O".parse().unwrap(), vec![1])
        .to_bytes(None)
        .unwrap();
    out.extend_from_slice(data);
    out
}

// ---------------------------------------------------------------------------------------------
// disallowed globals
// ---------------------------------------------------------------------------------------------

/// `(what, pickle, module, name refused first, marker file the payload creates or "")`.
fn payloads(dir: &Path) -> Vec<(&'static str, Vec<u8>, &'static str, &'static str, String)> {
    let m = |n: &str| dir.join(n).display().to_string();
    let touch = |n: &str| ustr(&format!("touch {}", m(n)));
    let py_touch = |n: &str| ustr(&format!("open({:?}, 'w').close()", m(n)));
    vec![
        (
            "os.system",
            pickle(2, call(global("os", "system"), &[touch("os_system")])),
            "os",
            "system",
            m("os_system"),
        ),
        (
            "posix.system via STACK_GLOBAL",
            pickle(
                4,
                call(stack_global("posix", "system"), &[touch("posix_system")]),
            ),
            "posix",
            "system",
            m("posix_system"),
        ),
        (
            "builtins.eval",
            pickle(2, call(global("builtins", "eval"), &[py_touch("eval")])),
            "builtins",
            "eval",
            m("eval"),
        ),
        (
            "builtins.exec",
            pickle(2, call(global("builtins", "exec"), &[py_touch("exec")])),
            "builtins",
            "exec",
            m("exec"),
        ),
        (
            "builtins.getattr(__import__('os'), 'system')",
            pickle(
                2,
                call(
                    call(
                        global("builtins", "getattr"),
                        &[
                            call(global("builtins", "__import__"), &[ustr("os")]),
                            ustr("system"),
                        ],
                    ),
                    &[touch("getattr")],
                ),
            ),
            "builtins",
            "getattr",
            m("getattr"),
        ),
        (
            "subprocess.Popen",
            pickle(
                2,
                call(
                    global("subprocess", "Popen"),
                    &[{
                        let mut l = vec![b'('];
                        l.extend(ustr("touch"));
                        l.extend(ustr(&m("popen")));
                        l.push(b'l');
                        l
                    }],
                ),
            ),
            "subprocess",
            "Popen",
            m("popen"),
        ),
        (
            "importlib.import_module",
            pickle(2, {
                let mut o = call(global("importlib", "import_module"), &[ustr("os")]);
                o.extend_from_slice(b"p0\n0"); // memo[0] = os; POP
                o.extend(call(
                    call(
                        global("builtins", "getattr"),
                        &[b"g0\n".to_vec(), ustr("system")],
                    ),
                    &[touch("importlib")],
                ));
                o
            }),
            "importlib",
            "import_module",
            m("importlib"),
        ),
        (
            "a user class with __reduce__ (its constructor runs)",
            pickle(2, {
                let mut o = global("__main__", "Evil");
                o.extend_from_slice(b")R");
                o
            }),
            "__main__",
            "Evil",
            m("evil_class"),
        ),
        (
            "numpy.save",
            pickle(
                2,
                call(
                    global("numpy", "save"),
                    &[ustr(&m("np_save.npy")), b"K\x01".to_vec()],
                ),
            ),
            "numpy",
            "save",
            m("np_save.npy"),
        ),
        (
            "numpy.memmap (as _reconstruct's class)",
            pickle(
                2,
                call(
                    global("numpy", "memmap"),
                    &[
                        ustr(&m("memmap")),
                        ustr("uint8"),
                        ustr("w+"),
                        b"K\x00".to_vec(),
                        b"K\x01\x85".to_vec(),
                    ],
                ),
            ),
            "numpy",
            "memmap",
            m("memmap"),
        ),
        (
            "_reconstruct of a subclass is refused at the subclass",
            pickle(
                2,
                call(
                    global("numpy._core.multiarray", "_reconstruct"),
                    &[global("numpy", "memmap"), b"K\x00\x85".to_vec(), ustr("b")],
                ),
            ),
            "numpy",
            "memmap",
            String::new(),
        ),
        (
            "numpy.frombuffer",
            pickle(
                2,
                call(global("numpy", "frombuffer"), &[b"C\x01x".to_vec()]),
            ),
            "numpy",
            "frombuffer",
            String::new(),
        ),
        (
            "numpy.load",
            pickle(2, call(global("numpy", "load"), &[ustr(&m("nothing.npy"))])),
            "numpy",
            "load",
            String::new(),
        ),
        (
            "INST names a global too",
            pickle(0, {
                let mut o = b"(".to_vec();
                o.extend(touch("inst"));
                o.extend_from_slice(b"ios\nsystem\n");
                o
            }),
            "os",
            "system",
            m("inst"),
        ),
    ]
}

#[test]
fn disallowed_globals_are_refused_and_nothing_runs() {
    let dir = tempfile::tempdir().unwrap();
    let table = payloads(dir.path());
    for (what, bytes, module, name, marker) in &table {
        let err = loads(bytes).expect_err(what);
        assert_eq!(
            err,
            PickleError::Global {
                module: (*module).into(),
                name: (*name).into()
            },
            "{what}"
        );
        assert_eq!(
            err.to_string().split(';').next().unwrap(),
            format!("pickle calls {module}.{name}"),
            "{what}"
        );
        // The same bytes as an object array's data.
        let file = npy_with(bytes);
        match NpyReader::new(&file[..])
            .unwrap()
            .read_dyn_using(&PickleCodec::default())
            .map_err(into_pickle)
        {
            Err(Some(e)) => assert_eq!(e, err, "{what}"),
            other => panic!("{what}: {other:?}"),
        }
        if !marker.is_empty() {
            assert!(!Path::new(marker).exists(), "{what}: the payload ran");
        }
    }

    // The payloads are live: Python's own unpickler (with numpy, for numpy.save) runs each one.
    let Some(python) =
        npy_test_support::python::python_for("the hostile pickles' effect under Python's pickle")
    else {
        return;
    };
    let mut script = String::from(
        "import pickle, sys, time\n\
         class Evil:\n    def __init__(self):\n        open(sys.argv[1] + '/evil_class', 'w').close()\n\
         import __main__; __main__.Evil = Evil\n\
         for path in sys.argv[2:]:\n    data = open(path, 'rb').read()\n    \
         try:\n        r = pickle.loads(data)\n        getattr(r, 'wait', lambda: None)()\n    \
         except Exception as e:\n        print(path, type(e).__name__, e)\n",
    );
    script.push_str("time.sleep(0.1)\n");
    let mut args = vec![dir.path().display().to_string()];
    for (i, (_, bytes, ..)) in table.iter().enumerate() {
        let p = dir.path().join(format!("payload{i}.pkl"));
        std::fs::write(&p, bytes).unwrap();
        args.push(p.display().to_string());
    }
    let out = Command::new(&python)
        .arg("-c")
        .arg(&script)
        .args(&args)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (what, _, _, _, marker) in &table {
        if !marker.is_empty() {
            assert!(
                Path::new(marker).exists(),
                "{what}: Python did not create {marker}, so the test proves nothing\n{}",
                String::from_utf8_lossy(&out.stdout)
            );
        }
    }
}

#[test]
fn references_outside_the_pickle_are_refused() {
    for (body, opcode) in [
        (b"P1\n".to_vec(), "PERSID"),
        (b"K\x01Q".to_vec(), "BINPERSID"),
        (b"\x82\x01".to_vec(), "EXT1"),
        (b"\x83\x01\x00".to_vec(), "EXT2"),
        (b"\x84\x01\x00\x00\x00".to_vec(), "EXT4"),
        (b"\x97".to_vec(), "NEXT_BUFFER"),
        (b"\x97\x98".to_vec(), "NEXT_BUFFER"),
    ] {
        let e = loads(&pickle(5, body)).unwrap_err();
        assert!(
            matches!(e, PickleError::External { opcode: o, .. } if o == opcode),
            "{e}"
        );
    }
}

#[test]
fn newobj_and_build_on_the_wrong_things_are_refused() {
    // complex.__new__(complex, 1.0): NEWOBJ on an allowed class.
    let p = pickle(2, {
        let mut o = global("builtins", "complex");
        o.extend_from_slice(b"G?\xf0\x00\x00\x00\x00\x00\x00\x85\x81");
        o
    });
    let e = loads(&p).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("pickle uses NEWOBJ on builtins.complex"),
        "{e}"
    );
    // NEWOBJ_EX on a refused class is refused at the global.
    let p = pickle(4, {
        let mut o = stack_global("collections", "OrderedDict");
        o.extend_from_slice(b")}\x92");
        o
    });
    assert!(matches!(loads(&p), Err(PickleError::Global { .. })));
    // BUILD on a list (Python would call __setstate__ or update __dict__).
    let e = loads(&pickle(2, b"]}b".to_vec())).unwrap_err();
    assert!(matches!(e, PickleError::Unsupported { .. }), "{e}");
    // BUILD twice on one dtype.
    let dtype = {
        let mut o = call(
            global("numpy", "dtype"),
            &[ustr("f8"), b"\x89\x88".to_vec()],
        );
        o.extend_from_slice(
            b"(K\x03X\x01\x00\x00\x00<NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb",
        );
        o
    };
    assert!(loads(&pickle(2, dtype.clone())).is_ok());
    let mut twice = dtype;
    twice
        .extend_from_slice(b"(K\x03X\x01\x00\x00\x00>NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb");
    assert!(matches!(
        loads(&pickle(2, twice)),
        Err(PickleError::Unsupported { .. })
    ));
    // REDUCE of something that is not a global.
    let e = loads(&pickle(2, b"N)R".to_vec())).unwrap_err();
    assert!(matches!(e, PickleError::Malformed { .. }), "{e}");
}

// ---------------------------------------------------------------------------------------------
// size and depth
// ---------------------------------------------------------------------------------------------

/// A memo bomb: level 0 is a 100-character str; level i is [level i-1, level i-1].
fn memo_bomb(levels: usize) -> Vec<u8> {
    let mut o = vec![0x80, 4];
    o.extend(ustr(&"x".repeat(100)));
    o.push(0x94);
    for i in 0..levels {
        o.push(b'(');
        for _ in 0..2 {
            o.push(b'j');
            o.extend_from_slice(&(i as u32).to_le_bytes());
        }
        o.extend_from_slice(&[b'l', 0x94]);
    }
    o.push(b'.');
    o
}

#[test]
fn memo_bombs_are_refused_before_they_are_built() {
    let bomb = memo_bomb(40); // 2^40 strings from 628 bytes
    assert!(bomb.len() < 700);
    match loads(&bomb) {
        Err(PickleError::TooLarge {
            pickle_bytes,
            limit,
        }) => {
            assert_eq!(pickle_bytes, bomb.len() as u64);
            assert_eq!(limit, PICKLE_BUDGET);
        }
        other => panic!("{other:?}"),
    }
    // The same in a .npy file.
    let file = npy_with(&bomb);
    assert!(matches!(
        NpyReader::new(&file[..])
            .unwrap()
            .read_dyn_using(&PickleCodec::default())
            .map_err(into_pickle),
        Err(Some(PickleError::TooLarge { .. }))
    ));
    // A small bomb within the budget decodes: 2^8 copies.
    let ok = loads(&memo_bomb(8)).unwrap();
    let mut depth = 0;
    let mut v = &ok;
    while let Some(items) = v.as_slice() {
        assert_eq!(items.len(), 2);
        v = &items[0];
        depth += 1;
    }
    assert_eq!(depth, 8);

    // Copies made while the opcodes run count too: set(L) of a 50,000-item list, 10,000 times.
    let mut o = vec![0x80, 4, b'('];
    o.extend(std::iter::repeat_n(b'N', 50_000));
    o.extend_from_slice(&[b'l', 0x94, b'0']);
    for _ in 0..10_000 {
        o.extend(stack_global("builtins", "set"));
        o.extend_from_slice(&[b'h', 0, 0x85, b'R', b'0']);
    }
    o.extend_from_slice(b"N.");
    assert!(matches!(loads(&o), Err(PickleError::TooLarge { .. })));
}

/// `[None] * n`: costs one list (32 bytes, 16 per slot) and n `None`s (32 each).
fn nones(n: usize) -> Vec<u8> {
    let mut o = vec![0x80, 4, b']', b'('];
    o.extend(std::iter::repeat_n(b'N', n));
    o.extend_from_slice(b"e.");
    o
}

fn with_budget(max_bytes: u64) -> PickleLimits {
    let mut l = PickleLimits::default();
    l.max_bytes = max_bytes;
    l
}

/// The least budget `p` decodes within (the budget is checked after every charge, so the
/// least that succeeds is what decoding charged in all).
fn cost_of(p: &[u8]) -> u64 {
    let (mut lo, mut hi) = (0u64, 1u64 << 32);
    assert!(loads_with(p, &with_budget(hi)).is_ok());
    while lo + 1 < hi {
        let mid = lo + (hi - lo) / 2;
        match loads_with(p, &with_budget(mid)) {
            Ok(_) => hi = mid,
            Err(PickleError::TooLarge { limit, .. }) => {
                assert_eq!(limit, mid);
                lo = mid;
            }
            Err(e) => panic!("{e}"),
        }
    }
    hi
}

#[test]
fn the_budget_is_exact_at_its_boundary() {
    let obj = 32u64; // size_of::<PyObject>()
    assert_eq!(std::mem::size_of::<npy_pickle::PyObject>() as u64, obj);
    // One more `None` in `[None] * n` costs exactly: its opcode byte, a stack slot (16), its
    // slot in the list node (16), the copy of that slot when the list is built (16) and its
    // value in the tree (32).
    let per_item = 1 + 16 + 16 + 16 + obj;
    let small = cost_of(&nones(1000));
    assert_eq!(cost_of(&nones(2000)) - small, 1000 * per_item);
    // What is not per item is small and does not depend on n: the pickle's framing, one node,
    // one mark, the root value.
    assert!(small - 1000 * per_item < 200, "{small}");
    assert!(matches!(
        loads_with(&nones(1000), &with_budget(small - 1)),
        Err(PickleError::TooLarge { limit, .. }) if limit == small - 1
    ));

    // The default budget at its boundary: a pickle that costs exactly PICKLE_BUDGET (padded
    // after STOP: trailing bytes are held, one byte each) decodes; one byte more does not.
    let fixed = small - 1000 * per_item;
    let n = (PICKLE_BUDGET - fixed) / per_item;
    let mut p = nones(n as usize);
    let pad = PICKLE_BUDGET - fixed - n * per_item;
    p.resize(p.len() + pad as usize, 0);
    assert!(loads(&p).is_ok(), "n={n}");
    p.push(0);
    assert!(matches!(
        loads(&p),
        Err(PickleError::TooLarge { limit, .. }) if limit == PICKLE_BUDGET
    ));
}

/// `d` lists, each inside the previous one.
fn nested_lists(d: usize) -> Vec<u8> {
    let mut o = vec![0x80, 4];
    o.extend(std::iter::repeat_n(b']', d));
    o.extend(std::iter::repeat_n(b'a', d - 1));
    o.push(b'.');
    o
}

#[test]
fn depth_is_limited_at_the_boundary_and_100000_levels_fail_at_once() {
    assert!(loads(&nested_lists(MAX_PICKLE_DEPTH)).is_ok());
    assert_eq!(
        loads(&nested_lists(MAX_PICKLE_DEPTH + 1)),
        Err(PickleError::TooDeep {
            limit: MAX_PICKLE_DEPTH
        })
    );
    let start = CpuTimer::start();
    assert!(matches!(
        loads(&nested_lists(100_000)),
        Err(PickleError::TooDeep { .. })
    ));
    // 100,000 nested tuples and dicts through MARK.
    let mut t = vec![0x80, 2];
    t.extend(std::iter::repeat_n(b'(', 100_000));
    t.extend(std::iter::repeat_n(b't', 100_000));
    t.push(b'.');
    assert!(matches!(loads(&t), Err(PickleError::TooDeep { .. })));
    let mut d = vec![0x80, 2];
    for _ in 0..100_000 {
        d.extend_from_slice(b"}K\x01");
    }
    d.extend(std::iter::repeat_n(b's', 99_999));
    d.extend_from_slice(b"0.");
    // The first SETITEM finds an int where its dict should be: an error, not a crash.
    assert!(loads(&d).is_err());
    // In an object array the array is one level: its elements may nest MAX - 1 more.
    let file = npy_with(&nested_lists(100_000));
    assert!(matches!(
        NpyReader::new(&file[..])
            .unwrap()
            .read_dyn_using(&PickleCodec::default())
            .map_err(into_pickle),
        Err(Some(
            PickleError::NotTheArray { .. } | PickleError::TooDeep { .. }
        ))
    ));
    assert!(start.elapsed().as_secs() < 30);
}

// ---------------------------------------------------------------------------------------------
// malformed input
// ---------------------------------------------------------------------------------------------

fn fixture_data(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/object")
        .join(name);
    let bytes = std::fs::read(p).unwrap();
    let off = NpyReader::new(&bytes[..])
        .unwrap()
        .parsed_header()
        .data_offset() as usize;
    bytes[off..].to_vec()
}

#[test]
fn truncation_at_every_byte_is_an_error() {
    for name in [
        "mixed_p2.npy",
        "dicts_p3.npy",
        "scalars_p4.npy",
        "record_p4.npy",
    ] {
        let data = fixture_data(name);
        assert!(loads(&data).is_ok(), "{name}");
        for n in 0..data.len() {
            assert!(
                loads(&data[..n]).is_err(),
                "{name}: {n} of {} bytes decoded",
                data.len()
            );
            let file = npy_with(&data[..n]);
            assert!(
                NpyReader::new(&file[..])
                    .unwrap()
                    .read_dyn_using(&PickleCodec::default())
                    .is_err(),
                "{name}: {n}"
            );
        }
    }
}

#[test]
fn opcodes_on_wrong_stacks_are_errors() {
    // (stack set-up, opcode with its argument): each must be an error.
    let none = b"N".to_vec();
    let cases: &[(&[u8], &[u8])] = &[
        (b"", b"a"),                      // APPEND: empty stack
        (b"NN", b"a"),                    // APPEND to None
        (b"}N", b"a"),                    // APPEND to a dict
        (b"(N", b"e"),                    // APPENDS with no list under the MARK
        (b"N(N", b"e"),                   // APPENDS to None
        (b"NNN", b"s"),                   // SETITEM on None
        (b"]NN", b"s"),                   // SETITEM on a list
        (b"}(N", b"u"),                   // SETITEMS with an odd number of items
        (b"](NN", b"u"),                  // SETITEMS on a list
        (b"(NNN", b"d"),                  // DICT of three items
        (b"](N", b"\x90"),                // ADDITEMS to a list
        (b"", b"t"),                      // TUPLE without MARK
        (b"", b"l"),                      // LIST without MARK
        (b"", b"\x91"),                   // FROZENSET without MARK
        (b"N", b"\x86"),                  // TUPLE2 with one item
        (b"N(N", b"\x86"),                // TUPLE2 reaching under the MARK
        (b"", b"1"),                      // POP_MARK without MARK
        (b"", b"0"),                      // POP on empty
        (b"", b"2"),                      // DUP on empty
        (b"", b"\x94"),                   // MEMOIZE on empty
        (b"", b"q\x00"),                  // BINPUT on empty
        (b"", b"h\x00"),                  // BINGET of a missing entry
        (b"", b"g7\n"),                   // GET of a missing entry
        (b"NN", b"\x93"),                 // STACK_GLOBAL of None
        (b"N", b"\x93"),                  // STACK_GLOBAL with one item
        (b"N)", b"R"),                    // REDUCE of None
        (b"cbuiltins\ncomplex\nN", b"R"), // REDUCE with args that are not a tuple
        (b"N", b"b"),                     // BUILD with one item
        (b"NN", b"b"),                    // BUILD on None
        (b"N))", b"\x81"),                // NEWOBJ of None
        (b"", b"o"),                      // OBJ without MARK
        (b"(N", b"o"),                    // OBJ of None
        (b"", b"\x80\x06"),               // PROTO 6
        (b"", b"\x8b\xff\xff\xff\xff"),   // LONG4 with a negative length
        (b"", b"T\xff\xff\xff\xff"),      // BINSTRING with a negative length
        (b"", b"I1x\n"),                  // INT that is not a number
        (b"", b"Fx\n"),                   // FLOAT that is not a number
        (b"", b"Sabc\n"),                 // STRING without quotes
        (b"", b"V\\ud800\n"),             // UNICODE with a lone surrogate
        (b"", b"\x8c\x01\xff"),           // SHORT_BINUNICODE that is not UTF-8
        (b"", b"\x8c\x03\xed\xa0\x80"),   // ... a lone surrogate as Python writes it
        (b"", b"\xff"),                   // not an opcode
    ];
    for (setup, op) in cases {
        let mut p = vec![0x80, 4];
        p.extend_from_slice(setup);
        p.extend_from_slice(op);
        p.extend_from_slice(&none);
        p.push(b'.');
        assert!(loads(&p).is_err(), "{setup:?} then {op:?} decoded");
    }
    // Every byte as an opcode, after each of several stacks, with argument bytes after it:
    // errors or values, never a panic.
    let setups: &[&[u8]] = &[
        b"",
        b"N",
        b"(",
        b"]",
        b"}",
        b"N(N",
        b")",
        b"cbuiltins\nset\n",
    ];
    for setup in setups {
        for op in 0..=255u8 {
            let mut p = vec![0x80, 5];
            p.extend_from_slice(setup);
            p.push(op);
            p.extend_from_slice(b"1\n1\n\x01\x00\x00\x00\x00\x00\x00\x00x.");
            let _ = loads(&p);
        }
    }
}

#[test]
fn a_recursive_list_is_an_error() {
    // l = []; l.append(l)
    let e = loads(b"\x80\x04]\x94h\x00a.").unwrap_err();
    assert_eq!(e, PickleError::Recursive { memo: 0 });
}

fn long1(v: u64) -> Vec<u8> {
    let mut b = v.to_le_bytes().to_vec();
    b.push(0); // sign byte: non-negative
    let mut o = vec![0x8a, b.len() as u8];
    o.extend(b);
    o
}

/// `dtype(typestr)` and its BUILD state with `names`/`fields`/`elsize`, stored at memo `at`.
fn dtype_level(at: u32, typestr: &str, fields: &[(&str, u32, u64)], elsize: u64) -> Vec<u8> {
    let mut o = call(
        global("numpy", "dtype"),
        &[ustr(typestr), b"\x89\x88".to_vec()],
    );
    o.extend_from_slice(b"(K\x03");
    o.extend(ustr(if fields.is_empty() { "<" } else { "|" }));
    if fields.is_empty() {
        o.extend_from_slice(b"NNN");
    } else {
        o.extend_from_slice(b"N(");
        for (name, _, _) in fields {
            o.extend(ustr(name));
        }
        o.extend_from_slice(b"t}(");
        for (name, memo, offset) in fields {
            o.extend(ustr(name));
            o.push(b'(');
            o.push(b'j');
            o.extend_from_slice(&memo.to_le_bytes());
            o.extend(long1(*offset));
            o.push(b't');
        }
        o.push(b'u');
    }
    o.extend(long1(elsize));
    o.extend_from_slice(b"J\xff\xff\xff\xffK\x00tb");
    o.push(b'r');
    o.extend_from_slice(&at.to_le_bytes());
    o
}

#[test]
fn dtype_bombs_are_refused() {
    // Level i is a record of two fields of level i - 1: copying level 40 copies 2^40 dtypes.
    let mut body = dtype_level(0, "f8", &[], 8);
    body.push(b'0');
    let mut size = 8u64;
    for i in 1..=40u32 {
        body.extend(dtype_level(
            i,
            &format!("V{}", 2 * size),
            &[("a", i - 1, 0), ("b", i - 1, size)],
            2 * size,
        ));
        body.push(b'0');
        size *= 2;
    }
    body.extend_from_slice(b"j\x28\x00\x00\x00");
    let p = pickle(2, body);
    assert!(p.len() < 6000, "{}", p.len());
    assert!(
        matches!(loads(&p), Err(PickleError::TooLarge { .. })),
        "{:?}",
        loads(&p).map(|_| ())
    );
    // Three levels decode: a record of records.
    let mut small = dtype_level(0, "f8", &[], 8);
    small.push(b'0');
    small.extend(dtype_level(1, "V16", &[("a", 0, 0), ("b", 0, 8)], 16));
    let v = loads(&pickle(2, small)).unwrap();
    assert_eq!(
        npy_print::repr(&v).to_string(),
        "dtype([('a', '<f8'), ('b', '<f8')])"
    );
}

/// A review's find: numpy's `np.array(['lorem ipsum ' * 50] * 20000, dtype=object)` pickles
/// one 600-character str and 19,999 memo references to it (40 KB of pickle, 12.6 MB of
/// values once each reference is a copy), which the old 1 MiB allowance refused although
/// numpy loads it. Built here as numpy's pickler writes it: the list, MARK, the str, MEMOIZE,
/// BINGET 0 for every other item, APPENDS.
#[test]
fn shared_references_of_an_ordinary_file_decode() {
    let text = "lorem ipsum ".repeat(50);
    let n = 20_000;
    let mut p = vec![0x80, 4, b']', b'('];
    p.extend(ustr(&text));
    p.push(0x94);
    for _ in 1..n {
        p.extend_from_slice(&[b'h', 0]);
    }
    p.extend_from_slice(b"e.");
    let cost = n as u64 * (32 + text.len() as u64);
    assert!(
        cost > p.len() as u64 * 256 + (1 << 20),
        "past the old budget"
    );
    let v = loads(&p).expect("within the allowance");
    let items = v.as_slice().expect("a list");
    assert_eq!(items.len(), n);
    assert!(items.iter().all(|x| x.as_str() == Some(text.as_str())));
}

/// A review's find: a dict keyed by a list was written, and neither `np.load` ("unhashable
/// type: 'list'") nor this reader could load the file. Python's hashing rules: lists, dicts,
/// sets, bytearrays and arrays (and slices before 3.12) are unhashable, a tuple is hashable
/// when its items are.
#[test]
fn unhashable_keys_and_set_items_are_refused_when_writing() {
    use npy_pickle::{dumps, PyObject};
    let s = || PyObject::Str("a".into());
    let bad = [
        PyObject::Dict(vec![(PyObject::List(vec![]), s())]),
        PyObject::Dict(vec![(
            PyObject::Tuple(vec![PyObject::Int(1), PyObject::Set(vec![])]),
            s(),
        )]),
        PyObject::Set(vec![PyObject::Dict(vec![])]),
        PyObject::FrozenSet(vec![PyObject::ByteArray(vec![1])]),
    ];
    for v in bad {
        assert!(
            matches!(
                dumps(std::slice::from_ref(&v), &[1]),
                Err(PickleError::Unpicklable { .. })
            ),
            "{}",
            npy_print::repr(&v)
        );
    }
    let good = PyObject::Dict(vec![(PyObject::Tuple(vec![PyObject::Int(1), s()]), s())]);
    let bytes = dumps(std::slice::from_ref(&good), &[1]).expect("hashable key");
    assert!(loads(&bytes).is_ok());
}

// ---------------------------------------------------------------------------------------------
// round two (issue 23, ../shared/cases/turn3/r01, r03, r04): one constant budget for all the
// interpreter holds, work per opcode bounded, keys refused before reprs are built
// ---------------------------------------------------------------------------------------------

/// `SHORT_BINUNICODE s`.
fn su(s: &str) -> Vec<u8> {
    let mut o = vec![0x8c, s.len() as u8];
    o.extend_from_slice(s.as_bytes());
    o
}

/// `module.name` by `STACK_GLOBAL` (protocol 4), as the turn-3 scripts write it.
fn sglob(module: &str, name: &str) -> Vec<u8> {
    let mut o = su(module);
    o.extend(su(name));
    o.push(0x93);
    o
}

/// `numpy.dtype(s, False, True)`.
fn dt(s: &str) -> Vec<u8> {
    let mut o = sglob("numpy", "dtype");
    o.extend(su(s));
    o.extend_from_slice(b"\x89\x88\x87R");
    o
}

/// numpy's own pickle of `np.array([item], dtype=object)` around the opcodes of `item`.
fn object_array(item: &[u8]) -> Vec<u8> {
    let mut p = vec![0x80, 4];
    p.extend(sglob("numpy._core.multiarray", "_reconstruct"));
    p.extend(sglob("numpy", "ndarray"));
    p.extend_from_slice(b"K\x00\x85C\x01b\x87R(K\x01K\x01\x85");
    p.extend(dt("O8"));
    p.extend_from_slice(b"(K\x03");
    p.extend(su("|"));
    p.extend_from_slice(b"NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK?tb\x89](");
    p.extend_from_slice(item);
    p.extend_from_slice(b"etb.");
    p
}

/// `_frombuffer(b'', dtype('u1'), (first, 0), 'C')`: an empty array of a huge first axis.
fn empty_array(first: u64) -> Vec<u8> {
    let mut o = sglob("numpy._core.numeric", "_frombuffer");
    o.extend_from_slice(b"(C\x00");
    o.extend(dt("u1"));
    o.extend_from_slice(b"(\x8a\x08");
    o.extend_from_slice(&first.to_le_bytes());
    o.extend_from_slice(b"K\x00t");
    o.extend(su("C"));
    o.extend_from_slice(b"tR");
    o
}

/// `slice(item)`.
fn slice_of(item: &[u8]) -> Vec<u8> {
    let mut o = sglob("builtins", "slice");
    o.extend_from_slice(item);
    o.extend_from_slice(b"\x85R");
    o
}

/// Decodes an `.npy` of one object element holding `pickle` with `read_dyn`.
fn read_object_npy(pickle: &[u8]) -> Result<npy_core::DynArray, Option<PickleError>> {
    let file = npy_with(pickle);
    NpyReader::new(&file[..])
        .and_then(|mut r| r.read_dyn_using(&PickleCodec::default()))
        .map_err(into_pickle)
}

/// The repr of the one element of an object array.
fn object_repr(array: &npy_core::DynArray) -> String {
    let element = array.element(0).expect("one element");
    match PyObject::of(&element) {
        Some(o) => npy_print::repr(o).to_string(),
        None => panic!("{element:?}"),
    }
}

fn too_large(r: Result<npy_core::DynArray, Option<PickleError>>) -> bool {
    matches!(r, Err(Some(PickleError::TooLarge { .. })))
}

/// r01: an empty array of shape (2^62, 0) as a set item or a dict key (inside a slice) is
/// unhashable, found at once (the old reader built its repr to hash it); as a plain element
/// its repr is numpy's, which names the shape instead of listing 2^62 empty lists.
#[test]
fn r01_huge_empty_arrays_are_neither_hashed_nor_printed_whole() {
    let start = CpuTimer::start();
    let empty = empty_array(1 << 62);
    let mut in_set = vec![0x8f, b'('];
    in_set.extend(slice_of(&empty));
    in_set.push(0x90);
    let mut as_key = vec![b'}'];
    as_key.extend(slice_of(&empty));
    as_key.extend_from_slice(b"K\x01s");
    // Variants not in the script: a tuple holding the array as a key, a frozenset of it,
    // the array itself as a key.
    let mut in_tuple_key = vec![b'}'];
    in_tuple_key.extend_from_slice(&empty);
    in_tuple_key.extend_from_slice(b"\x85K\x01s");
    let mut in_frozenset = sglob("builtins", "frozenset");
    in_frozenset.extend_from_slice(&empty);
    in_frozenset.extend_from_slice(b"\x85\x85R");
    let mut bare_key = vec![b'}'];
    bare_key.extend_from_slice(&empty);
    bare_key.extend_from_slice(b"K\x01s");
    for (label, item) in [
        ("set of slice", in_set),
        ("dict key slice", as_key),
        ("tuple key", in_tuple_key),
        ("frozenset", in_frozenset),
        ("bare key", bare_key),
    ] {
        match read_object_npy(&object_array(&item)) {
            Err(Some(PickleError::Malformed { reason, .. })) => {
                assert!(reason.contains("unhashable type"), "{label}: {reason}");
            }
            other => panic!("{label}: {other:?}"),
        }
    }
    // The plain element decodes, and its repr is short: numpy's text, checked below.
    let array = read_object_npy(&object_array(&empty)).expect("an empty array decodes");
    let repr = object_repr(&array);
    assert_eq!(
        repr,
        "array([], shape=(4611686018427387904, 0), dtype=uint8)"
    );
    assert!(start.elapsed().as_secs() < 2, "{:?}", start.elapsed());
}

/// The repr of arrays inside object arrays, against numpy's `repr` of the same arrays:
/// empty ones of every rank and default dtype, summarised ones (more than 1000 elements).
/// Integer arrays: this repr writes float elements as Python floats (`0.0`), not numpy's
/// `0.`, and pads and wraps nothing.
#[test]
fn repr_of_nested_arrays_is_numpys() {
    let Some(python) =
        npy_test_support::python::python_for("numpy's repr of empty and summarised arrays")
    else {
        return;
    };
    let script = r"
import io, sys, numpy as np
cases = [np.zeros((3, 0), np.uint8), np.zeros((0,)), np.zeros(0, np.int64),
         np.zeros((2, 0, 3)), np.zeros((0, 3), object), np.zeros((0,), bool),
         np.arange(2000), np.arange(2000, dtype=np.uint8), np.arange(2000).reshape(2, 1000),
         np.arange(7000, dtype=np.int16).reshape(7, 1000), np.arange(1001, dtype=np.int32)]
for a in cases:
    b = io.BytesIO(); o = np.empty(1, object); o[0] = a; np.save(b, o, allow_pickle=True)
    sys.stdout.write(b.getvalue().hex() + ' ' + repr(a).replace('\n', '').replace('      ', ' ') + '\n')
";
    let out = std::process::Command::new(python)
        .args(["-c", script])
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // numpy pads numbers to a common width and wraps lines; this repr does neither.
    let squeeze = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .replace("[ ", "[")
            .replace("( ", "(")
    };
    let mut n = 0;
    for line in text.lines() {
        let (hex, want) = line.split_once(' ').unwrap();
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        let array = NpyReader::new(&bytes[..])
            .unwrap()
            .read_dyn_using(&PickleCodec::default())
            .unwrap();
        let got = object_repr(&array);
        assert_eq!(squeeze(&got), squeeze(want));
        n += 1;
    }
    assert_eq!(n, 11);
}

/// r03: 16 million `EMPTY_TUPLE`s (16 MB of pickle that deflates to 16 KB) are refused by the
/// constant budget however well they compress; so are the other ways to make the interpreter
/// hold memory per opcode byte (marks, memo entries, `DUP`s) and a 1 MiB str shared 290 times.
#[test]
fn r03_what_the_interpreter_holds_is_charged_to_one_constant_budget() {
    let start = CpuTimer::start();
    let mut tuples = vec![0x80, 4, b'('];
    tuples.extend(std::iter::repeat_n(b')', 16_000_000));
    tuples.extend_from_slice(b"l.");
    let mut marks = vec![0x80, 4];
    marks.extend(std::iter::repeat_n(b'(', 16_000_000));
    marks.extend_from_slice(b"N.");
    let mut memo = vec![0x80, 4, b'N'];
    for i in 0..4_000_000u32 {
        memo.push(b'r');
        memo.extend_from_slice(&i.to_le_bytes());
    }
    memo.push(b'.');
    let mut dups = vec![0x80, 4, b'N'];
    dups.extend(std::iter::repeat_n(b'2', 16_000_000));
    dups.push(b'.');
    for (label, p) in [
        ("EMPTY_TUPLE", &tuples),
        ("MARK", &marks),
        ("LONG_BINPUT", &memo),
        ("DUP", &dups),
    ] {
        assert!(
            matches!(loads(p), Err(PickleError::TooLarge { limit, .. }) if limit == PICKLE_BUDGET),
            "{label}"
        );
    }
    // The str of 1 MiB referenced 290 times: 290 MiB of copies.
    let mut shared = vec![b'X'];
    shared.extend_from_slice(&(1u32 << 20).to_le_bytes());
    shared.extend(std::iter::repeat_n(b'a', 1 << 20));
    shared.extend_from_slice(b"\x940](");
    for _ in 0..290 {
        shared.extend_from_slice(b"h\x00");
    }
    shared.push(b'e');
    assert!(too_large(read_object_npy(&object_array(&shared))));
    // The budget is settable: a smaller one refuses what the default allows (40 copies).
    let mut fewer = shared[..(1 << 20) + 7].to_vec();
    fewer.extend_from_slice(b"](");
    for _ in 0..40 {
        fewer.extend_from_slice(b"h\x00");
    }
    fewer.push(b'e');
    let ok = object_array(&fewer);
    assert!(loads(&ok).is_ok());
    let mut small = PickleLimits::default();
    small.max_bytes = 8 << 20;
    assert!(matches!(
        loads_with(&ok, &small),
        Err(PickleError::TooLarge { limit, .. }) if limit == 8 << 20
    ));
    // Through the codec too, and a pickle longer than the budget is not read past it.
    let mut limits = PickleLimits::default();
    limits.max_bytes = 1 << 20;
    let file = npy_with(&ok);
    assert!(matches!(
        NpyReader::new(&file[..])
            .and_then(|mut r| r.read_dyn_using(&PickleCodec::with_limits(limits)))
            .map_err(into_pickle),
        Err(Some(PickleError::TooLarge { limit, .. })) if limit == 1 << 20
    ));
    assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
}

/// r04: a memoised tuple of N items given to `numpy.dtype` M times by REDUCE: refused at the
/// first REDUCE for its number of arguments, as Python's `TypeError`, without copying them.
/// Variants: every allowed constructor with one argument too many, by REDUCE, INST and OBJ.
#[test]
fn r04_reduce_checks_its_arguments_before_copying_them() {
    let start = CpuTimer::start();
    let quad = |n: usize, m: usize| {
        let mut o = vec![0x80, 4];
        o.extend(su("numpy"));
        o.extend(su("dtype"));
        o.extend_from_slice(b"\x93\x94(");
        o.extend(su("f8"));
        o.extend(std::iter::repeat_n(b'N', n));
        o.extend_from_slice(b"t\x94");
        for _ in 0..m {
            o.extend_from_slice(b"h\x00h\x01R0");
        }
        o.extend_from_slice(b"N.");
        o
    };
    match loads(&quad(400_000, 120_000)) {
        Err(PickleError::Unsupported { what, reason, .. }) => {
            assert_eq!(what, "numpy.dtype");
            assert_eq!(reason, "takes at most 4 arguments (400001 given)");
        }
        other => panic!("{other:?}"),
    }
    assert!(start.elapsed().as_millis() < 2000, "{:?}", start.elapsed());
    let most = [
        ("numpy._core.multiarray", "_reconstruct", 3),
        ("numpy", "dtype", 4),
        ("numpy._core.multiarray", "scalar", 2),
        ("numpy._core.numeric", "_frombuffer", 5),
        ("builtins", "complex", 2),
        ("builtins", "set", 1),
        ("builtins", "frozenset", 1),
        ("builtins", "bytearray", 2),
        ("builtins", "bytes", 1),
        ("_codecs", "encode", 2),
        ("builtins", "range", 3),
        ("builtins", "slice", 3),
    ];
    for (module, name, n) in most {
        let args = vec![b"N".to_vec(); n + 1];
        let by_reduce = pickle(4, call(stack_global(module, name), &args));
        let mut by_inst = format!("(i{module}\n{name}\n").into_bytes();
        by_inst.splice(1..1, std::iter::repeat_n(b'N', n + 1));
        let by_inst = pickle(2, by_inst);
        let mut by_obj = vec![b'('];
        by_obj.extend(global(module, name));
        by_obj.extend(std::iter::repeat_n(b'N', n + 1));
        by_obj.push(b'o');
        let by_obj = pickle(2, by_obj);
        for p in [by_reduce, by_inst, by_obj] {
            match loads(&p) {
                Err(PickleError::Unsupported { reason, .. }) => assert_eq!(
                    reason,
                    format!("takes at most {n} arguments ({} given)", n + 1),
                    "{module}.{name}"
                ),
                other => panic!("{module}.{name}: {other:?}"),
            }
        }
    }
}

/// The [`PickleError`] an npy-core error carries (`None` for any other error).
fn into_pickle(e: Error) -> Option<PickleError> {
    PickleError::of(&e).cloned()
}

/// Object arrays of every shape of dtype that holds `O` (alone, in records, nested records,
/// subarrays, titled fields), whose data would run `os.system`: `read_dyn` with the codec
/// refuses the global by name (npy-core's `object_arrays` test holds the same files to the
/// refusal of every read without a codec).
#[test]
fn hostile_object_arrays_are_refused_by_name_in_every_object_dtype() {
    const PICKLE: &[u8] = b"\x80\x04\x95\x1f\x00\x00\x00\x00\x00\x00\x00\x8c\x02os\x94\x8c\x06system\x94\x93\x94\x8c\necho pwned\x94\x85\x94R\x94.";
    let dir = tempfile::tempdir().unwrap();
    for (i, descr) in [
        "'|O'",
        "'|O8'",
        "[('a', '<f8'), ('o', '|O')]",
        "[('a', '<f8'), ('inner', [('b', '<i4'), ('o', '|O')])]",
        "[('s', '|O', (2,))]",
        "[('a', '<f8'), ('s', [('o', '|O')], (2, 2))]",
        "('|O', (3,))",
        "[(('title', 'o'), '|O')]",
    ]
    .iter()
    .enumerate()
    {
        let text = format!("{{'descr': {descr}, 'fortran_order': False, 'shape': (4,), }}\n");
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        bytes.extend_from_slice(&u16::try_from(text.len()).unwrap().to_le_bytes());
        bytes.extend_from_slice(text.as_bytes());
        for _ in 0..64 {
            bytes.extend_from_slice(PICKLE);
        }
        let path = dir.path().join(format!("o{i}.npy"));
        std::fs::write(&path, &bytes).unwrap();
        let err = npy_pickle::read_dyn(&path).unwrap_err();
        assert_eq!(err.path(), Some(path.as_path()), "{descr}");
        match PickleError::of(&err) {
            Some(e @ PickleError::Global { .. }) => {
                assert!(
                    e.to_string()
                        .starts_with("pickle calls os.system; refused, nothing was executed"),
                    "{descr}: {e}"
                );
                // What `fn main() -> Result<(), PickleError>` and `unwrap` print.
                assert_eq!(format!("{e:?}"), e.to_string(), "{descr}");
            }
            other => panic!("{descr}: read_dyn decoded a hostile pickle: {other:?} ({err})"),
        }
        assert_eq!(
            err.classify(),
            npy_core::error::Category::Unsupported,
            "{descr}"
        );
    }
}

/// `BINUNICODE` of `n` BEL characters (`'\x07'`, whose repr takes four bytes), memoised as
/// entry 0, then `copies - 1` more references to it (`BINGET 0`): inside a list, `copies`
/// items that the pickle budget charges once each (`n` bytes) and the printer writes as
/// `4 n + 2` bytes each.
fn shared_bells(n: u32, copies: usize) -> Vec<u8> {
    let mut o = b"](X".to_vec();
    o.extend_from_slice(&n.to_le_bytes());
    o.extend(std::iter::repeat_n(7u8, n as usize));
    o.push(0x94); // MEMOIZE
    for _ in 1..copies {
        o.extend_from_slice(b"h\x00");
    }
    o.push(b'e');
    o
}

/// Issue 23's budget for printed output: a small pickle whose values the pickle budget
/// allows prints text four times their size, and nested object arrays print each level's
/// text again. One print's object text is charged to `PrintOptions::object_budget`
/// (`OBJECT_TEXT_BUDGET` by default) and cut with `...` where it runs out, which the display
/// tells; within the budget the text is whole.
#[test]
fn printed_text_is_charged_to_the_print_budget() {
    use npy_print::{Print, PrintOptions, OBJECT_TEXT_BUDGET};
    // 100 copies of 64 KiB: 6.4 MiB of values, 25.6 MiB of text.
    let a = read_object_npy(&object_array(&shared_bells(64 << 10, 100))).unwrap();
    let whole = a.display_with(&PrintOptions::new());
    let text = format!("{whole:#}");
    assert!(!whole.was_cut());
    assert!(text.len() as u64 <= OBJECT_TEXT_BUDGET);
    assert_eq!(text.matches("\\x07").count(), 100 << 16);
    for budget in [0u64, 1000, 1 << 20] {
        let shown = a.display_with(&PrintOptions::new().object_budget(budget));
        let cut = format!("{shown:#}");
        assert!(shown.was_cut(), "{budget}");
        // The budget, the `...` of the cut, and the array's own frame.
        assert!(cut.len() as u64 <= budget + 64, "{budget}: {}", cut.len());
        assert!(cut.contains("..."), "{budget}");
        let plain = shown.to_string();
        assert!(
            plain.len() as u64 <= budget + 64,
            "{budget}: {}",
            plain.len()
        );
    }
    // A `PyObject`'s own repr is within the default budget.
    let first = &a.objects().expect("an object array")[0];
    match PyObject::of(first) {
        Some(o) => {
            assert_eq!(
                npy_print::repr(o).to_string().matches("\\x07").count(),
                100 << 16
            );
        }
        None => panic!("{first:?}"),
    }
    // Object arrays nested 20 deep around 1 MiB of BELs: each level's item holds the text
    // of the levels inside (20 × 4 MiB of strings for a 1 MiB pickle); the budget bounds what
    // is held and written.
    let mut item = b"X".to_vec();
    item.extend_from_slice(&(1u32 << 20).to_le_bytes());
    item.extend(std::iter::repeat_n(7u8, 1 << 20));
    for _ in 0..20 {
        let inner = object_array(&item);
        // Without its protocol header and STOP: an object array as a value.
        item = inner[2..inner.len() - 1].to_vec();
    }
    let nested = read_object_npy(&object_array(&item)).unwrap();
    let options = PrintOptions::new().object_budget(8 << 20);
    let shown = nested.display_with(&options);
    let text = format!("{shown:#}");
    assert!(shown.was_cut());
    assert!(text.len() <= 8 << 20, "{}", text.len());
}

/// `numpy._core.multiarray.scalar(dtype, BINBYTES bytes)`: a numpy scalar as numpy pickles it.
fn scalar_of(dtype: &[u8], bytes: &[u8]) -> Vec<u8> {
    let mut o = sglob("numpy._core.multiarray", "scalar");
    o.extend_from_slice(dtype);
    o.push(b'B');
    o.extend_from_slice(&u32::try_from(bytes.len()).unwrap().to_le_bytes());
    o.extend_from_slice(bytes);
    o.extend_from_slice(b"\x86R");
    o
}

/// `BININT n`.
fn binint(n: u32) -> Vec<u8> {
    let mut o = vec![b'J'];
    o.extend_from_slice(&n.to_le_bytes());
    o
}

/// `np.dtype([('a', 'u1', (n,))])` as numpy's pickle builds it: `dtype('V{n}')` given the
/// state `(3, '|', None, ('a',), {'a': (dtype(('u1', (n,))), 0)}, n, 1, 16)`, the field's
/// subarray dtype `dtype('V{n}')` given `(3, '|', (dtype('u1'), (n,)), None, None, n, 1, 0)`.
fn subarray_record(n: u32) -> Vec<u8> {
    let mut sub = dt(&format!("V{n}"));
    sub.extend_from_slice(b"(K\x03");
    sub.extend(su("|"));
    sub.extend(dt("u1"));
    sub.extend(binint(n));
    sub.extend_from_slice(b"\x85\x86NN");
    sub.extend(binint(n));
    sub.extend_from_slice(b"K\x01K\x00tb");
    let mut rec = dt(&format!("V{n}"));
    rec.extend_from_slice(b"(K\x03");
    rec.extend(su("|"));
    rec.push(b'N');
    rec.extend(su("a"));
    rec.extend_from_slice(b"\x85}");
    rec.extend(su("a"));
    rec.extend(sub);
    rec.extend_from_slice(b"K\x00\x86s");
    rec.extend(binint(n));
    rec.extend_from_slice(b"K\x01K\x10tb");
    rec
}

/// Review of issue 23: a numpy scalar is charged for the value it decodes to and for each
/// copy. A scalar memoised once and referenced 20,000 times (`np.load` shares one object: 26
/// MB) made 20,000 copies of its 64 KiB uncharged (2.5 GB from a 480-byte .npz); a scalar
/// of `[('a', 'u1', (n,))]` decodes to a value per byte, 48 times its bytes, which were all
/// that was charged (8 MiB of pickle, 8.5 KB deflated, took 815 MB; numpy 42 MB).
#[test]
fn numpy_scalars_are_charged_for_their_values_and_each_copy() {
    use npy_pickle::PyObject;
    let shared = |copies: usize| {
        let mut item = scalar_of(&dt("S65536"), &vec![b'a'; 65536]);
        item.extend_from_slice(b"\x940](");
        for _ in 0..copies {
            item.extend_from_slice(b"h\x00");
        }
        item.push(b'e');
        read_object_npy(&object_array(&item))
    };
    assert!(too_large(shared(20_000)));
    // Within the budget, every reference is the scalar (np.bytes_ of 65,536 b'a').
    let a = shared(100).unwrap();
    let element = a.element(0);
    match element.as_ref().and_then(PyObject::of) {
        Some(PyObject::List(items)) => {
            assert_eq!(items.len(), 100);
            for item in items {
                match item {
                    PyObject::Scalar(s) => {
                        assert_eq!(s.value, npy_core::DynValue::Bytes(vec![b'a'; 65536]));
                    }
                    other => panic!("{other:?}"),
                }
            }
        }
        other => panic!("{other:?}"),
    }
    // 8 MiB of a subarray field: 384 MiB of values, past the 128 MiB budget.
    let n = 8 << 20;
    let big = scalar_of(&subarray_record(n), &vec![0u8; n as usize]);
    assert!(too_large(read_object_npy(&object_array(&big))));
    // 64 KiB of it (3 MiB of values) decodes: one field 'a' of 65,536 zeros.
    let n = 1 << 16;
    let small = scalar_of(&subarray_record(n), &vec![0u8; n as usize]);
    let element = read_object_npy(&object_array(&small)).unwrap().element(0);
    match element.as_ref().and_then(PyObject::of) {
        Some(PyObject::Scalar(s)) => match &s.value {
            npy_core::DynValue::Record(fields) => {
                assert_eq!(fields.len(), 1);
                assert_eq!(fields[0].0, "a");
                match &fields[0].1 {
                    npy_core::DynValue::SubArray { shape, values } => {
                        assert_eq!(shape, &[u64::from(n)]);
                        assert!(values.iter().all(|v| *v == npy_core::DynValue::UInt(0)));
                    }
                    other => panic!("{other:?}"),
                }
            }
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
}

/// Review of issue 23 (r04's kind through `BUILD`): a memoised dtype state of 400,008 items
/// (version 3, then `None`s) given to 120,000 dtypes. `BUILD` copied the whole state before
/// reading its first nine items: 48 G item copies (a 2 MB file ran past 30 s). Read in
/// place, every dtype takes its state and the pickle's root, `None`, is returned.
#[test]
fn a_long_dtype_state_shared_by_many_dtypes_is_read_in_place() {
    let (n, m) = (400_000, 120_000);
    let mut p = b"\x80\x04(K\x03".to_vec();
    p.extend(su("<"));
    p.extend_from_slice(b"NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00");
    p.extend(std::iter::repeat_n(b'N', n));
    p.extend_from_slice(b"t\x940");
    p.extend(sglob("numpy", "dtype"));
    p.extend_from_slice(b"\x940");
    for _ in 0..m {
        p.extend_from_slice(b"h\x01");
        p.extend(su("f8"));
        p.extend_from_slice(b"\x89\x88\x87Rh\x00b0");
    }
    p.extend_from_slice(b"N.");
    assert_eq!(loads(&p).unwrap(), npy_pickle::PyObject::None);
}

/// `LONG4` of `n`, memoised and popped: `h` + memo index then pushes it again.
fn memoised_long4(n: &npy_pickle::BigInt) -> Vec<u8> {
    let bytes = n.to_signed_bytes_le();
    let mut o = vec![0x8b];
    o.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    o.extend_from_slice(&bytes);
    o.extend_from_slice(b"\x940");
    o
}

/// The second review of issue 23 (`f_bigint_nocache.py`): R3's kind with the one-entry cache
/// defeated — two 4,299-digit ints alternating 70,000 times — converted each to decimal
/// again, 15,000 conversions of quadratic work before the 64 MiB of text ran out. A conversion
/// is now charged its work too (`int_decimal_work`: d²/1024 bytes for d digits), so the print
/// is cut after about a fifth as many, and the digits it prints are the ints' own.
#[test]
fn decimal_conversions_are_charged_to_the_print_budget() {
    use npy_pickle::{int_decimal_work, BigInt};
    use npy_print::{Print, PrintOptions, OBJECT_TEXT_BUDGET};
    let a: BigInt = "7".repeat(4299).parse().unwrap();
    let b: BigInt = &a + 1u32;
    let mut item = memoised_long4(&a);
    item.extend(memoised_long4(&b));
    item.extend_from_slice(b"](");
    for _ in 0..35_000 {
        item.extend_from_slice(b"h\x00h\x01");
    }
    item.push(b'e');
    let array = read_object_npy(&object_array(&item)).unwrap();
    let shown = array.display_with(&PrintOptions::new());
    let text = shown.to_string();
    assert!(shown.was_cut());
    let (a_text, b_text) = (a.to_string(), b.to_string());
    let printed: Vec<&str> = text
        .trim_start_matches("[list([")
        .split(", ")
        .take_while(|t| t.len() == 4299)
        .collect();
    for (i, t) in printed.iter().enumerate() {
        assert_eq!(*t, if i % 2 == 0 { &a_text } else { &b_text }, "int {i}");
    }
    let per_int = int_decimal_work(&a) + 4299 + 2;
    assert!(int_decimal_work(&a) > 17_000);
    assert!(
        printed.len() as u64 <= OBJECT_TEXT_BUDGET / per_int + 1,
        "{} ints printed",
        printed.len()
    );
    assert!(printed.len() > 1000, "{} ints printed", printed.len());
}
