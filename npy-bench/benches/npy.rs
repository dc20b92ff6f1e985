//! Criterion suite: npy-core vs npyz, ndarray-npy and the limit. Names are
//! `operation/dtype_size/implementation`, which `cargo xtask bench` reads back.

use std::hint::black_box;
use std::io::{Read, Write};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use npy_bench::{
    data_dir, f16_file, f32_file, f64_be_file, records_file, rows_file, typical_header,
    wide_header, XyId, XyIdAligned, XyIdAlignedPod, XyIdPod, MIB, RECORDS, ROWS,
};
use npy_core::{Header, NpyReader, NpyView, ReadOptions, WriteOptions};

/// npyz's derive of the record `{x: f32, y: f32, id: i64}`.
#[derive(npyz::Deserialize, npyz::AutoSerialize, npyz::Serialize, Debug, Clone, Copy, Default)]
struct NpyzXyId {
    x: f32,
    y: f32,
    id: i64,
}

fn header_parse(c: &mut Criterion) {
    let mut g = c.benchmark_group("header_parse");
    let typical = typical_header();
    g.bench_function(BenchmarkId::new("typical_118B", "npy-core"), |b| {
        b.iter(|| Header::read(&mut black_box(&typical[..])).unwrap());
    });
    g.bench_function(BenchmarkId::new("typical_118B", "npyz"), |b| {
        b.iter(|| npyz::NpyHeader::from_reader(black_box(&typical[..])).unwrap());
    });
    let wide = wide_header();
    g.throughput(Throughput::Elements(4000));
    g.bench_function(BenchmarkId::new("record_4000_fields", "npy-core"), |b| {
        b.iter(|| Header::read(&mut black_box(&wide[..])).unwrap());
    });
    g.bench_function(BenchmarkId::new("record_4000_fields", "npyz"), |b| {
        b.iter(|| npyz::NpyHeader::from_reader(black_box(&wide[..])).unwrap());
    });
    g.finish();
}

fn read_f32(c: &mut Criterion) {
    let dir = data_dir().unwrap();
    let mut g = c.benchmark_group("read_f32");
    for size in [MIB, 64 * MIB, 256 * MIB] {
        let path = f32_file(&dir, size).unwrap();
        let id = format!("{}MiB", size / MIB);
        g.throughput(Throughput::Bytes(size as u64));
        g.sample_size(if size > MIB { 10 } else { 50 });
        g.bench_function(BenchmarkId::new(&id, "npy-core"), |b| {
            b.iter(|| npy_core::read::<f32>(&path).unwrap());
        });
        // The same on the calling thread alone: what the parallel read gains.
        let one = ReadOptions::default().threads(1);
        g.bench_function(BenchmarkId::new(&id, "npy-core-1-thread"), |b| {
            b.iter(|| npy_core::read::read_with::<f32>(&path, &one).unwrap());
        });
        let mut buf = vec![0f32; size / 4];
        g.bench_function(BenchmarkId::new(&id, "npy-core-into"), |b| {
            b.iter(|| {
                let mut r = NpyReader::open(&path).unwrap();
                r.read_into(&mut buf).unwrap();
            });
        });
        g.bench_function(BenchmarkId::new(&id, "npyz"), |b| {
            b.iter(|| {
                let f = std::io::BufReader::new(std::fs::File::open(&path).unwrap());
                npyz::NpyFile::new(f).unwrap().into_vec::<f32>().unwrap()
            });
        });
        g.bench_function(BenchmarkId::new(&id, "ndarray-npy"), |b| {
            b.iter(|| ndarray_npy::read_npy::<_, ndarray::Array1<f32>>(&path).unwrap());
        });
        g.bench_function(BenchmarkId::new(&id, "limit-fs-read"), |b| {
            b.iter(|| std::fs::read(&path).unwrap());
        });
        let src: Vec<f32> = npy_core::read::<f32>(&path).unwrap().into_vec();
        g.bench_function(BenchmarkId::new(&id, "limit-memcpy"), |b| {
            b.iter(|| buf.copy_from_slice(black_box(&src)));
        });
        drop(src);
        let mut raw = vec![0u8; size + 128];
        g.bench_function(BenchmarkId::new(&id, "limit-read-into"), |b| {
            b.iter(|| {
                let mut f = std::fs::File::open(&path).unwrap();
                f.read_exact(&mut raw).unwrap();
            });
        });
    }
    g.finish();
}

/// One row (3 `f32`) per `read_into` over 1,000,000 rows: a path reader (buffered inside)
/// against the same reader over a hand-made `BufReader<File>`.
fn read_rows(c: &mut Criterion) {
    let dir = data_dir().unwrap();
    let path = rows_file(&dir).unwrap();
    let mut g = c.benchmark_group("read_rows");
    g.throughput(Throughput::Elements(ROWS as u64));
    g.sample_size(10);
    fn rows<R: Read>(mut r: NpyReader<R>) -> f32 {
        let mut row = [0f32; 3];
        let mut sum = 0.0;
        while r.remaining() > 0 {
            r.read_into(&mut row).unwrap();
            sum += row[2];
        }
        sum
    }
    g.bench_function(BenchmarkId::new("f32_1Mx3", "npy-core"), |b| {
        b.iter(|| rows(NpyReader::open(&path).unwrap()));
    });
    g.bench_function(BenchmarkId::new("f32_1Mx3", "npy-core-bufreader"), |b| {
        b.iter(|| {
            let f = std::io::BufReader::new(std::fs::File::open(&path).unwrap());
            rows(NpyReader::new(f).unwrap())
        });
    });
    g.finish();
}

fn read_other(c: &mut Criterion) {
    let dir = data_dir().unwrap();
    let size = 64 * MIB;
    let mut g = c.benchmark_group("read_other");
    g.throughput(Throughput::Bytes(size as u64));
    g.sample_size(10);
    let be = f64_be_file(&dir, size).unwrap();
    g.bench_function(BenchmarkId::new("f64be_64MiB", "npy-core"), |b| {
        b.iter(|| npy_core::read::<f64>(&be).unwrap());
    });
    g.bench_function(BenchmarkId::new("f64be_64MiB", "npyz"), |b| {
        b.iter(|| {
            let f = std::io::BufReader::new(std::fs::File::open(&be).unwrap());
            npyz::NpyFile::new(f).unwrap().into_vec::<f64>().unwrap()
        });
    });
    g.bench_function(BenchmarkId::new("f64be_64MiB", "ndarray-npy"), |b| {
        b.iter(|| ndarray_npy::read_npy::<_, ndarray::Array1<f64>>(&be).unwrap());
    });
    let h = f16_file(&dir, size).unwrap();
    g.bench_function(BenchmarkId::new("f16_64MiB", "npy-core"), |b| {
        b.iter(|| npy_core::read::<npy_core::half::f16>(&h).unwrap());
    });
    g.finish();
}

fn write_f32(c: &mut Criterion) {
    let dir = npy_bench::write_dir().unwrap();
    let size = 64 * MIB;
    let n = size / 4;
    let data: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let arr = ndarray::Array1::from(data.clone());
    let out = dir.join("write_out.npy");
    let mut g = c.benchmark_group("write_f32");
    g.throughput(Throughput::Bytes(size as u64));
    g.sample_size(10);
    g.bench_function(BenchmarkId::new("64MiB", "npy-core"), |b| {
        b.iter(|| npy_core::write(&out, &data, &[n as u64]).unwrap());
    });
    g.bench_function(BenchmarkId::new("64MiB", "ndarray-npy"), |b| {
        b.iter(|| ndarray_npy::write_npy(&out, &arr).unwrap());
    });
    g.bench_function(BenchmarkId::new("64MiB", "npyz"), |b| {
        b.iter(|| npyz::to_file_1d(&out, data.iter().copied()).unwrap());
    });
    let bytes: Vec<u8> = {
        let mut v = Header::new("<f4".parse().unwrap(), vec![n as u64])
            .to_bytes(None)
            .unwrap();
        v.extend(data.iter().flat_map(|x| x.to_le_bytes()));
        v
    };
    g.bench_function(BenchmarkId::new("64MiB", "limit-fs-write"), |b| {
        b.iter(|| std::fs::write(&out, &bytes).unwrap());
    });
    g.throughput(Throughput::Elements(16 << 20));
    g.bench_function(BenchmarkId::new("stream_16M_push", "npy-core"), |b| {
        b.iter(|| {
            let mut w = WriteOptions::new().create_stream::<f32>(&out, &[]).unwrap();
            for i in 0..(16u32 << 20) {
                w.push(&(i as f32)).unwrap();
            }
            w.finish().unwrap();
        });
    });
    g.finish();
}

/// Issue 16: appending batches of 1 MiB rows to a file, against the same bytes appended to a
/// `fs::File`; without syncing (1,000 batches) and with a sync per batch (ours: data, then
/// header; the limit: one `sync_data`; 100 batches).
fn append(c: &mut Criterion) {
    let dir = npy_bench::write_dir().unwrap();
    let path = dir.join("append_out.npy");
    let row = MIB / 4;
    let batch: Vec<f32> = (0..row).map(|i| i as f32).collect();
    let batch_bytes: Vec<u8> = batch.iter().flat_map(|x| x.to_le_bytes()).collect();
    let empty = Header::new("<f4".parse().unwrap(), vec![0, row as u64])
        .to_bytes(None)
        .unwrap();
    let mut g = c.benchmark_group("append");
    g.sample_size(10);
    for (case, batches, sync) in [("1000x1MiB", 1000, false), ("100x1MiB_sync", 100, true)] {
        g.throughput(Throughput::Bytes((batches * MIB) as u64));
        g.bench_function(BenchmarkId::new(case, "npy-core"), |b| {
            b.iter(|| {
                std::fs::write(&path, &empty).unwrap();
                let mut w = npy_core::write::AppendOptions::new()
                    .sync(sync)
                    .open(&path)
                    .unwrap();
                for _ in 0..batches {
                    w.append(&batch, &[1, row as u64]).unwrap();
                }
            });
        });
        g.bench_function(BenchmarkId::new(case, "limit-fs-append"), |b| {
            b.iter(|| {
                std::fs::write(&path, &empty).unwrap();
                let mut f = std::fs::File::options().append(true).open(&path).unwrap();
                for _ in 0..batches {
                    f.write_all(&batch_bytes).unwrap();
                    if sync {
                        f.sync_data().unwrap();
                    }
                }
            });
        });
    }
    g.finish();
}

fn view(c: &mut Criterion) {
    let dir = data_dir().unwrap();
    let mut g = c.benchmark_group("view");
    for size in [MIB, 1024 * MIB] {
        let path = f32_file(&dir, size).unwrap();
        let id = format!(
            "f32_{}",
            if size >= 1024 * MIB {
                "1GiB".to_string()
            } else {
                format!("{}MiB", size / MIB)
            }
        );
        g.bench_function(BenchmarkId::new(&id, "npy-core-mmap"), |b| {
            b.iter(|| {
                // SAFETY: the benchmark's own file, not modified while mapped.
                let m = unsafe { npy_core::NpyMmap::<f32>::open(black_box(&path)) }.unwrap();
                black_box(m.data().len())
            });
        });
        let bytes = std::fs::read(&path).unwrap();
        g.bench_function(BenchmarkId::new(&id, "npy-core"), |b| {
            b.iter(|| {
                let v = NpyView::<f32>::new(black_box(&bytes)).unwrap();
                black_box(v.data().len())
            });
        });
        g.bench_function(BenchmarkId::new(&id, "ndarray-npy"), |b| {
            use ndarray_npy::ViewNpyExt;
            b.iter(|| {
                let v = ndarray::ArrayView1::<f32>::view_npy(black_box(&bytes)).unwrap();
                black_box(v.len())
            });
        });
    }
    g.finish();
}

fn read_records(c: &mut Criterion) {
    let dir = data_dir().unwrap();
    let mut g = c.benchmark_group("read_records");
    g.throughput(Throughput::Elements(RECORDS as u64));
    g.sample_size(20);
    for aligned in [false, true] {
        let path = records_file(&dir, aligned).unwrap();
        let id = format!("xyid_1M_{}", if aligned { "aligned" } else { "packed" });
        if aligned {
            g.bench_function(BenchmarkId::new(&id, "npy-core"), |b| {
                b.iter(|| npy_core::read::<XyIdAligned>(&path).unwrap().into_vec());
            });
            let mut buf = vec![XyIdAligned::default(); RECORDS];
            g.bench_function(BenchmarkId::new(&id, "npy-core-into"), |b| {
                b.iter(|| NpyReader::open(&path).unwrap().read_into(&mut buf).unwrap());
            });
            g.bench_function(BenchmarkId::new(&id, "npy-core-pod"), |b| {
                b.iter(|| npy_core::read::<XyIdAlignedPod>(&path).unwrap().into_vec());
            });
            let mut buf = vec![XyIdAlignedPod::default(); RECORDS];
            g.bench_function(BenchmarkId::new(&id, "npy-core-pod-into"), |b| {
                b.iter(|| NpyReader::open(&path).unwrap().read_into(&mut buf).unwrap());
            });
        } else {
            g.bench_function(BenchmarkId::new(&id, "npy-core"), |b| {
                b.iter(|| npy_core::read::<XyId>(&path).unwrap().into_vec());
            });
            let mut buf = vec![XyId::default(); RECORDS];
            g.bench_function(BenchmarkId::new(&id, "npy-core-into"), |b| {
                b.iter(|| NpyReader::open(&path).unwrap().read_into(&mut buf).unwrap());
            });
            g.bench_function(BenchmarkId::new(&id, "npy-core-pod"), |b| {
                b.iter(|| npy_core::read::<XyIdPod>(&path).unwrap().into_vec());
            });
            let mut buf = vec![XyIdPod::default(); RECORDS];
            g.bench_function(BenchmarkId::new(&id, "npy-core-pod-into"), |b| {
                b.iter(|| NpyReader::open(&path).unwrap().read_into(&mut buf).unwrap());
            });
        }
        g.bench_function(BenchmarkId::new(&id, "npyz"), |b| {
            b.iter(|| {
                let f = std::io::BufReader::new(std::fs::File::open(&path).unwrap());
                npyz::NpyFile::new(f)
                    .unwrap()
                    .into_vec::<NpyzXyId>()
                    .unwrap()
            });
        });
        g.bench_function(BenchmarkId::new(&id, "limit-fs-read"), |b| {
            b.iter(|| std::fs::read(&path).unwrap());
        });
    }
    g.finish();
}

/// `.npz`: one member of a stored 100-member archive, a deflated 64 MiB member, every header of
/// 1,000 members, and writing (deflated 64 MiB float32 signal; stored 256 MiB).
fn npz(c: &mut Criterion) {
    use npy_npz::{Compression, NpzArchive, NpzWriter};
    let dir = data_dir().unwrap();
    let mut g = c.benchmark_group("npz");
    g.sample_size(10);
    let archive = npy_bench::npz_100_file(&dir).unwrap();
    g.throughput(Throughput::Bytes(64 * MIB as u64));
    g.bench_function(BenchmarkId::new("read_member_64MiB", "npy-core"), |b| {
        b.iter(|| {
            let npz = NpzArchive::open(&archive).unwrap();
            npz.read::<f32>(npy_bench::NPZ_BIG_KEY).unwrap()
        });
    });
    g.bench_function(BenchmarkId::new("read_member_64MiB", "ndarray-npy"), |b| {
        b.iter(|| {
            let f = std::fs::File::open(&archive).unwrap();
            let mut npz = ndarray_npy::NpzReader::new(f).unwrap();
            let a: ndarray::Array1<f32> = npz.by_name("big.npy").unwrap();
            a
        });
    });
    // A deflated 64 MiB member (np.savez_compressed's bytes): inflated whole by libdeflate,
    // beside the streaming read (flate2's zlib, what a row stream uses); np.load of the same
    // member is timed by `cargo xtask bench` (ndarray-npy is built here without deflate).
    let deflated = npy_bench::npz_deflated_file(&dir).unwrap();
    g.bench_function(BenchmarkId::new("read_deflated_64MiB", "npy-npz"), |b| {
        b.iter(|| {
            let npz = NpzArchive::open(&deflated).unwrap();
            npz.read::<f32>(npy_bench::NPZ_DEFLATED_KEY).unwrap()
        });
    });
    // The pieces, in the same run: the read on one thread (no split), and libdeflate's
    // one call alone into a fresh buffer of the member's size (the compressed bytes read
    // beforehand), the floor of a one-thread read.
    g.bench_function(
        BenchmarkId::new("read_deflated_64MiB", "npy-npz-1-thread"),
        |b| {
            let one = npy_core::ReadOptions::default().threads(1);
            b.iter(|| {
                let npz = NpzArchive::open_with(&deflated, one).unwrap();
                npz.read::<f32>(npy_bench::NPZ_DEFLATED_KEY).unwrap()
            });
        },
    );
    {
        let (compressed, size) = npy_bench::npz_member_deflate(&deflated).unwrap();
        g.bench_function(
            BenchmarkId::new("read_deflated_64MiB", "libdeflate-alone"),
            |b| {
                b.iter(|| {
                    let mut out = vec![0u8; size];
                    let n = libdeflater::Decompressor::new()
                        .deflate_decompress(&compressed, &mut out)
                        .unwrap();
                    assert_eq!(n, size);
                    out
                });
            },
        );
    }
    g.bench_function(
        BenchmarkId::new("read_deflated_64MiB", "npy-npz-stream-zlib"),
        |b| {
            b.iter(|| {
                let npz = NpzArchive::open(&deflated).unwrap();
                let mut r = npz.npy_reader(npy_bench::NPZ_DEFLATED_KEY).unwrap();
                r.read_vec::<f32>().unwrap()
            });
        },
    );
    let many = npy_bench::npz_1000_file(&dir).unwrap();
    g.throughput(Throughput::Elements(1000));
    g.bench_function(BenchmarkId::new("info_1000_members", "npy-core"), |b| {
        b.iter(|| {
            let npz = NpzArchive::open(&many).unwrap();
            let keys: Vec<String> = npz.keys().map(str::to_owned).collect();
            keys.iter()
                .map(|k| npz.info(k).unwrap().nbytes)
                .sum::<u64>()
        });
    });
    let out_dir = npy_bench::write_dir().unwrap();
    let out = out_dir.join("write_out.npz");
    let signal = npy_bench::signal_f32(16 * MIB);
    g.throughput(Throughput::Bytes(64 * MIB as u64));
    g.bench_function(BenchmarkId::new("write_deflated_64MiB", "npy-core"), |b| {
        b.iter(|| {
            let mut w = NpzWriter::create(&out)
                .unwrap()
                .compression(Compression::NUMPY_DEFLATED);
            w.add("signal", &signal, &[signal.len() as u64]).unwrap();
            w.finish().unwrap();
        });
    });
    // The archive's size, for the size target (absent when a filter skipped the write).
    if let Ok(m) = std::fs::metadata(&out) {
        std::fs::write(
            out_dir.join("write_deflated_64MiB.size"),
            m.len().to_string(),
        )
        .unwrap();
    }
    // The same on one thread: one zlib stream, numpy's bytes (what threads(n) buys).
    g.bench_function(
        BenchmarkId::new("write_deflated_64MiB", "npy-core-1-thread"),
        |b| {
            b.iter(|| {
                let mut w = NpzWriter::create(&out)
                    .unwrap()
                    .compression(Compression::NUMPY_DEFLATED)
                    .threads(1);
                w.add("signal", &signal, &[signal.len() as u64]).unwrap();
                w.finish().unwrap();
            });
        },
    );
    let big: Vec<f32> = (0..64 * MIB).map(|i| i as f32).collect();
    let bytes: Vec<u8> = bytemuck::cast_slice(&big).to_vec();
    g.throughput(Throughput::Bytes(256 * MIB as u64));
    g.bench_function(BenchmarkId::new("write_stored_256MiB", "npy-core"), |b| {
        b.iter(|| {
            let mut w = NpzWriter::create(&out).unwrap();
            w.add("x", &big, &[big.len() as u64]).unwrap();
            w.finish().unwrap();
        });
    });
    g.bench_function(
        BenchmarkId::new("write_stored_256MiB", "limit-fs-write"),
        |b| b.iter(|| std::fs::write(&out, &bytes).unwrap()),
    );
    let _ = std::fs::remove_file(&out);
    g.finish();
}

/// Issue 24's file: 1M records `[('id','<i8'), ('name','<U12'), ('score','<f4'),
/// ('when','<M8[ms]'), ('ok','?')]` (69 MB), read dynamically as a tree (`read_dyn`) and as
/// columns (`read_columns`).
fn read_dyn_records(c: &mut Criterion) {
    const N: u64 = 1_000_000;
    let dir = data_dir().unwrap();
    let path = dir.join("dyn_records_1M.npy");
    if !path.exists() {
        let dtype =
            "[('id', '<i8'), ('name', '<U12'), ('score', '<f4'), ('when', '<M8[ms]'), ('ok', '?')]"
                .parse()
                .unwrap();
        let mut bytes = npy_core::Header::new(dtype, vec![N])
            .to_bytes(None)
            .unwrap();
        for i in 0..N {
            bytes.extend_from_slice(&(i as i64).to_le_bytes());
            let name = ["alpha", "beta", "gamma", "delta-epsilon"][(i % 4) as usize];
            let mut cps = [0u32; 12];
            for (d, ch) in cps.iter_mut().zip(name.chars()) {
                *d = u32::from(ch);
            }
            for cp in cps {
                bytes.extend_from_slice(&cp.to_le_bytes());
            }
            bytes.extend_from_slice(&((i as f32) * 0.5).to_le_bytes());
            bytes.extend_from_slice(&(1_700_000_000_000i64 + i as i64).to_le_bytes());
            bytes.push(u8::from(i % 3 == 0));
        }
        std::fs::write(&path, bytes).unwrap();
    }
    let mut g = c.benchmark_group("read_dyn_records");
    g.throughput(Throughput::Bytes(69_000_000));
    g.sample_size(10);
    g.bench_function(BenchmarkId::new("1M_records", "read_dyn"), |b| {
        b.iter(|| npy_core::read_dyn(&path).unwrap());
    });
    g.finish();
}

criterion_group!(
    benches,
    read_dyn_records,
    npz,
    header_parse,
    read_f32,
    read_rows,
    read_other,
    write_f32,
    append,
    view,
    read_records
);
criterion_main!(benches);
