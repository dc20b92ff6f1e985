//! Arrow IPC files (the "Feather v2" file format): written from batches, read as batches,
//! every block the footer lists checked to lie inside the file first.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, Write};
use std::path::Path;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use crate::error::{Context, Error, ErrorKind};
use crate::npy::{contained, Atomic};

/// Writes an Arrow IPC file (the "Feather v2" file format) at `path` from the batches `fill`
/// pushes into the writer it is given; atomic.
///
/// # Errors
/// I/O and arrow errors, naming `path`.
pub fn write_ipc(
    path: impl AsRef<Path>,
    schema: &SchemaRef,
    fill: impl FnOnce(&mut dyn FnMut(&RecordBatch) -> Result<(), Error>) -> Result<(), Error>,
) -> Result<(), Error> {
    let path = path.as_ref();
    let mut out = Atomic::create(path)?;
    {
        let w = BufWriter::with_capacity(1 << 20, out.file());
        let mut writer = arrow_ipc::writer::FileWriter::try_new(w, schema).at_path(path)?;
        fill(&mut |b| writer.write(b).map_err(Error::from))?;
        writer.finish().at_path(path)?;
        writer.into_inner().at_path(path)?.flush().at_path(path)?;
    }
    out.commit()
}

/// Reads the Arrow IPC file at `path` batch by batch into `f` (with the schema first).
///
/// Every block the footer lists is checked to lie inside the file before it is read, so a
/// hostile footer cannot make the reader allocate more than the file's size.
///
/// # Errors
/// I/O and arrow errors (a malformed footer or message), naming `path`.
pub fn read_ipc(
    path: impl AsRef<Path>,
    schema: impl FnOnce(SchemaRef) -> Result<(), Error>,
    mut f: impl FnMut(RecordBatch) -> Result<(), Error>,
) -> Result<(), Error> {
    let path = path.as_ref();
    let reader = open(path)?;
    schema(reader.schema()).at_path(path)?;
    let mut reader = reader;
    while let Some(b) = contained(|| Ok(reader.next())).at_path(path)? {
        f(b.at_path(path)?).at_path(path)?;
    }
    Ok(())
}

/// Checks that every block an IPC file's footer lists lies inside the file, before arrow-ipc
/// reads (and allocates) any of them: a footer can claim blocks of any size.
pub(crate) fn check_ipc_blocks(file: &mut File) -> Result<(), Error> {
    use std::io::SeekFrom;
    let len = file.metadata()?.len();
    let malformed = |why: String| Error::new(ErrorKind::Malformed(why));
    if len < 10 + 8 {
        return Err(malformed(format!(
            "{len} bytes is too short for an Arrow IPC file"
        )));
    }
    let mut tail = [0u8; 10];
    file.seek(SeekFrom::End(-10))?;
    file.read_exact(&mut tail)?;
    let footer_len = arrow_ipc::reader::read_footer_length(tail)? as u64;
    if footer_len > len - 10 {
        return Err(malformed(format!(
            "the footer claims {footer_len} bytes of a {len}-byte file"
        )));
    }
    let mut footer = vec![0u8; footer_len as usize];
    file.seek(SeekFrom::Start(len - 10 - footer_len))?;
    file.read_exact(&mut footer)?;
    let footer = arrow_ipc::root_as_footer(&footer)
        .map_err(|e| malformed(format!("the footer is not a flatbuffer: {e}")))?;
    let blocks = footer
        .recordBatches()
        .into_iter()
        .flatten()
        .chain(footer.dictionaries().into_iter().flatten());
    for b in blocks {
        let end = u64::try_from(b.offset())
            .ok()
            .zip(u64::try_from(b.metaDataLength()).ok())
            .zip(u64::try_from(b.bodyLength()).ok())
            .and_then(|((o, m), body)| o.checked_add(m)?.checked_add(body));
        if end.is_none_or(|e| e > len) {
            return Err(malformed(format!(
                "a block at {} of {} + {} bytes lies outside the {len}-byte file",
                b.offset(),
                b.metaDataLength(),
                b.bodyLength()
            )));
        }
    }
    Ok(())
}

/// The schema of the IPC file at `path` (its blocks checked as [`read_ipc`] checks them).
pub(crate) fn ipc_schema(path: &Path) -> Result<SchemaRef, Error> {
    Ok(open(path)?.schema())
}

/// The IPC file at `path` opened for reading, after every block its footer lists is checked
/// to lie inside the file; errors name `path`.
fn open(path: &Path) -> Result<arrow_ipc::reader::FileReader<BufReader<File>>, Error> {
    let mut file = npy_fs::open_regular(path).at_path(path)?;
    check_ipc_blocks(&mut file).at_path(path)?;
    file.rewind().at_path(path)?;
    contained(|| {
        arrow_ipc::reader::FileReader::try_new(BufReader::new(file), None).map_err(Error::from)
    })
    .at_path(path)
}
