"""Issue 25's S3 reads, the Python side, against an S3 API on 127.0.0.1 (moto, started by
`cargo xtask bench --only remote`).

    bench_remote.py ENDPOINT BUCKET setup
        creates BUCKET and puts whole.npy (np.arange(64 Mi, dtype='<u4'), 256 MiB) and
        h/0.npy ... h/999.npy (h/i.npy: np.arange((i % 7 + 1) * 3, dtype='<f4') reshaped
        to (i % 7 + 1, 3)) with boto3;
    bench_remote.py ENDPOINT BUCKET time RUNS
        times, RUNS times each (median kept), boto3's get_object of whole.npy + np.load of
        the body (and get_object alone: moto's own rate), and a sequential loop of get_object(Range='bytes=0-65535') + numpy's
        header parse over the 1,000 headers; and, where curl is installed, moto's own time for
        the same GETs sent by curl (a C client) over presigned URLs: the whole object in one
        GET, the 1,000 ranged GETs 8 in flight; prints JSON {"whole": s, "get_only": s,
        "headers": s, "curl_whole": s, "curl_headers": s}.
"""
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import boto3
import numpy as np

HEADERS = 1000
WHOLE = 64 << 20


def client(endpoint):
    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def npy_bytes(a):
    b = io.BytesIO()
    np.save(b, a)
    return b.getvalue()


def setup(s3, bucket):
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="whole.npy", Body=npy_bytes(np.arange(WHOLE, dtype="<u4")))
    for i in range(HEADERS):
        a = np.arange((i % 7 + 1) * 3, dtype="<f4").reshape(i % 7 + 1, 3)
        s3.put_object(Bucket=bucket, Key=f"h/{i}.npy", Body=npy_bytes(a))


def whole(s3, bucket):
    body = s3.get_object(Bucket=bucket, Key="whole.npy")["Body"].read()
    a = np.load(io.BytesIO(body))
    assert a.shape == (WHOLE,) and a[-1] == WHOLE - 1
    return a


def get_only(s3, bucket):
    return s3.get_object(Bucket=bucket, Key="whole.npy")["Body"].read()


def headers(s3, bucket):
    shapes = []
    for i in range(HEADERS):
        body = s3.get_object(Bucket=bucket, Key=f"h/{i}.npy", Range="bytes=0-65535")["Body"].read()
        f = io.BytesIO(body)
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, _, _ = np.lib.format.read_array_header_1_0(f)
        else:
            shape, _, _ = np.lib.format.read_array_header_2_0(f)
        shapes.append(shape)
    assert all(s == (i % 7 + 1, 3) for i, s in enumerate(shapes))
    return shapes


def curl(args):
    subprocess.run(["curl", "--silent", "--show-error", "--no-progress-meter", "--fail", *args], check=True,
                   stdout=subprocess.DEVNULL)


def curl_whole(s3, bucket):
    """moto's own time for the whole object: one GET by curl (a C client) of a presigned URL."""
    url = s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "whole.npy"})
    return lambda: curl(["--output", "/dev/null", url])


def curl_headers(s3, bucket, cfg):
    """moto's own time for the 1,000 ranged GETs: curl over presigned URLs, 8 in flight
    (curl's URLs are signed before the clock starts)."""
    with open(cfg, "w") as f:
        for i in range(HEADERS):
            url = s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": f"h/{i}.npy"})
            f.write(f'url = "{url}"\noutput = "/dev/null"\n')
    return lambda: curl(["--parallel", "--parallel-max", "8", "--header", "Range: bytes=0-65535",
                         "--config", cfg])


def median(f, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def main():
    endpoint, bucket, what = sys.argv[1:4]
    s3 = client(endpoint)
    if what == "setup":
        setup(s3, bucket)
        return
    runs = int(sys.argv[4])
    out = {
        "whole": median(lambda: whole(s3, bucket), runs),
        "get_only": median(lambda: get_only(s3, bucket), runs),
        "headers": median(lambda: headers(s3, bucket), runs),
    }
    if shutil.which("curl"):
        with tempfile.TemporaryDirectory() as d:
            out["curl_whole"] = median(curl_whole(s3, bucket), runs)
            out["curl_headers"] = median(curl_headers(s3, bucket, os.path.join(d, "urls")), runs)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
