//! The pickle opcodes of protocols 0 to 5: each one's byte and name, written once
//! ([`OPCODES`]), and the [`Opcode`] the interpreter matches on, decoded from the byte once.

/// The parts of the interpreter, each running the opcodes of one kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// `STOP`: the end of the pickle.
    Stop,
    /// Protocol, framing and the stack itself.
    Control,
    /// `None`, bools, ints and floats.
    Number,
    /// `str`, `bytes` and `bytearray`.
    TextOrBytes,
    /// Tuples, lists, dicts and sets.
    Container,
    /// The memo.
    Memo,
    /// Globals, calls and `BUILD`.
    Call,
    /// References to objects outside the pickle, always refused.
    External,
}

/// Declares [`Opcode`] and the table of bytes, names and families from one list.
macro_rules! opcodes {
    ($($variant:ident = $byte:literal, $name:literal, $family:ident;)*) => {
        /// A pickle opcode (Python's `pickletools` names them).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(crate) enum Opcode {
            $($variant,)*
        }

        /// Every opcode with its byte and its name.
        const OPCODES: &[(Opcode, u8, &str)] = &[$((Opcode::$variant, $byte, $name),)*];

        /// The opcode of each byte (`None`: not an opcode).
        const BY_BYTE: [Option<Opcode>; 256] = {
            let mut table = [None; 256];
            let mut i = 0;
            while i < OPCODES.len() {
                let (op, byte, _) = OPCODES[i];
                table[byte as usize] = Some(op);
                i += 1;
            }
            table
        };

        impl Opcode {
            /// The name `pickletools` gives it, for messages.
            pub(crate) fn name(self) -> &'static str {
                match self {
                    $(Opcode::$variant => $name,)*
                }
            }

            /// The part of the interpreter that runs it.
            pub(crate) fn family(self) -> Family {
                match self {
                    $(Opcode::$variant => Family::$family,)*
                }
            }
        }
    };
}

opcodes! {
    // protocol 0
    Mark = b'(', "MARK", Control;
    Stop = b'.', "STOP", Stop;
    Pop = b'0', "POP", Control;
    PopMark = b'1', "POP_MARK", Control;
    Dup = b'2', "DUP", Control;
    Float = b'F', "FLOAT", Number;
    Int = b'I', "INT", Number;
    Long = b'L', "LONG", Number;
    None = b'N', "NONE", Number;
    PersId = b'P', "PERSID", External;
    Reduce = b'R', "REDUCE", Call;
    String = b'S', "STRING", TextOrBytes;
    Unicode = b'V', "UNICODE", TextOrBytes;
    Append = b'a', "APPEND", Container;
    Build = b'b', "BUILD", Call;
    Global = b'c', "GLOBAL", Call;
    Dict = b'd', "DICT", Container;
    Get = b'g', "GET", Memo;
    Inst = b'i', "INST", Call;
    List = b'l', "LIST", Container;
    Put = b'p', "PUT", Memo;
    SetItem = b's', "SETITEM", Container;
    Tuple = b't', "TUPLE", Container;
    // protocol 1
    BinInt = b'J', "BININT", Number;
    BinInt1 = b'K', "BININT1", Number;
    BinInt2 = b'M', "BININT2", Number;
    BinPersId = b'Q', "BINPERSID", External;
    BinString = b'T', "BINSTRING", TextOrBytes;
    ShortBinString = b'U', "SHORT_BINSTRING", TextOrBytes;
    BinUnicode = b'X', "BINUNICODE", TextOrBytes;
    EmptyDict = b'}', "EMPTY_DICT", Container;
    Appends = b'e', "APPENDS", Container;
    BinGet = b'h', "BINGET", Memo;
    LongBinGet = b'j', "LONG_BINGET", Memo;
    EmptyList = b']', "EMPTY_LIST", Container;
    Obj = b'o', "OBJ", Call;
    BinPut = b'q', "BINPUT", Memo;
    LongBinPut = b'r', "LONG_BINPUT", Memo;
    EmptyTuple = b')', "EMPTY_TUPLE", Container;
    SetItems = b'u', "SETITEMS", Container;
    BinFloat = b'G', "BINFLOAT", Number;
    // protocol 2
    Proto = 0x80, "PROTO", Control;
    NewObj = 0x81, "NEWOBJ", Call;
    Ext1 = 0x82, "EXT1", External;
    Ext2 = 0x83, "EXT2", External;
    Ext4 = 0x84, "EXT4", External;
    Tuple1 = 0x85, "TUPLE1", Container;
    Tuple2 = 0x86, "TUPLE2", Container;
    Tuple3 = 0x87, "TUPLE3", Container;
    NewTrue = 0x88, "NEWTRUE", Number;
    NewFalse = 0x89, "NEWFALSE", Number;
    Long1 = 0x8a, "LONG1", Number;
    Long4 = 0x8b, "LONG4", Number;
    // protocol 3
    BinBytes = b'B', "BINBYTES", TextOrBytes;
    ShortBinBytes = b'C', "SHORT_BINBYTES", TextOrBytes;
    // protocol 4
    ShortBinUnicode = 0x8c, "SHORT_BINUNICODE", TextOrBytes;
    BinUnicode8 = 0x8d, "BINUNICODE8", TextOrBytes;
    BinBytes8 = 0x8e, "BINBYTES8", TextOrBytes;
    EmptySet = 0x8f, "EMPTY_SET", Container;
    AddItems = 0x90, "ADDITEMS", Container;
    FrozenSet = 0x91, "FROZENSET", Container;
    NewObjEx = 0x92, "NEWOBJ_EX", Call;
    StackGlobal = 0x93, "STACK_GLOBAL", Call;
    Memoize = 0x94, "MEMOIZE", Memo;
    Frame = 0x95, "FRAME", Control;
    // protocol 5
    ByteArray8 = 0x96, "BYTEARRAY8", TextOrBytes;
    NextBuffer = 0x97, "NEXT_BUFFER", External;
    ReadOnlyBuffer = 0x98, "READONLY_BUFFER", External;
}

impl Opcode {
    /// The opcode `byte` stands for, if any.
    pub(crate) fn from_byte(byte: u8) -> Option<Opcode> {
        BY_BYTE[usize::from(byte)]
    }
}

/// The name of the opcode `byte` for messages: its name, or `unknown opcode 0x..`.
pub(crate) fn name_of(byte: u8) -> String {
    match Opcode::from_byte(byte) {
        Some(op) => op.name().to_owned(),
        None => format!("unknown opcode 0x{byte:02x}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python's `pickletools.opcodes` (3.12), as `(code, name)`: the 68 opcodes of
    /// protocols 0–5.
    const PICKLETOOLS: &[(u8, &str)] = &[
        (b'I', "INT"),
        (b'J', "BININT"),
        (b'K', "BININT1"),
        (b'M', "BININT2"),
        (b'L', "LONG"),
        (0x8a, "LONG1"),
        (0x8b, "LONG4"),
        (b'S', "STRING"),
        (b'T', "BINSTRING"),
        (b'U', "SHORT_BINSTRING"),
        (b'B', "BINBYTES"),
        (b'C', "SHORT_BINBYTES"),
        (0x8e, "BINBYTES8"),
        (0x96, "BYTEARRAY8"),
        (0x97, "NEXT_BUFFER"),
        (0x98, "READONLY_BUFFER"),
        (b'N', "NONE"),
        (0x88, "NEWTRUE"),
        (0x89, "NEWFALSE"),
        (b'V', "UNICODE"),
        (0x8c, "SHORT_BINUNICODE"),
        (b'X', "BINUNICODE"),
        (0x8d, "BINUNICODE8"),
        (b'F', "FLOAT"),
        (b'G', "BINFLOAT"),
        (b']', "EMPTY_LIST"),
        (b'a', "APPEND"),
        (b'e', "APPENDS"),
        (b'l', "LIST"),
        (b')', "EMPTY_TUPLE"),
        (b't', "TUPLE"),
        (0x85, "TUPLE1"),
        (0x86, "TUPLE2"),
        (0x87, "TUPLE3"),
        (b'}', "EMPTY_DICT"),
        (b'd', "DICT"),
        (b's', "SETITEM"),
        (b'u', "SETITEMS"),
        (0x8f, "EMPTY_SET"),
        (0x90, "ADDITEMS"),
        (0x91, "FROZENSET"),
        (b'0', "POP"),
        (b'2', "DUP"),
        (b'(', "MARK"),
        (b'1', "POP_MARK"),
        (b'g', "GET"),
        (b'h', "BINGET"),
        (b'j', "LONG_BINGET"),
        (b'p', "PUT"),
        (b'q', "BINPUT"),
        (b'r', "LONG_BINPUT"),
        (0x94, "MEMOIZE"),
        (0x82, "EXT1"),
        (0x83, "EXT2"),
        (0x84, "EXT4"),
        (b'c', "GLOBAL"),
        (0x93, "STACK_GLOBAL"),
        (b'R', "REDUCE"),
        (b'b', "BUILD"),
        (b'i', "INST"),
        (b'o', "OBJ"),
        (0x81, "NEWOBJ"),
        (0x92, "NEWOBJ_EX"),
        (0x80, "PROTO"),
        (b'.', "STOP"),
        (0x95, "FRAME"),
        (b'P', "PERSID"),
        (b'Q', "BINPERSID"),
    ];

    #[test]
    fn the_table_is_pickletools() {
        assert_eq!(OPCODES.len(), PICKLETOOLS.len());
        for &(byte, name) in PICKLETOOLS {
            let op = Opcode::from_byte(byte).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(op.name(), name);
        }
        for &(op, byte, name) in OPCODES {
            assert_eq!(Opcode::from_byte(byte), Some(op), "{name}");
        }
        assert_eq!(name_of(0xff), "unknown opcode 0xff");
        assert_eq!(Opcode::from_byte(b'x'), None);
    }
}
