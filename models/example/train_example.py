#!/usr/bin/python3
"""Trains the bundled example forecaster on the monthly Mauna Loa CO2 series.

Data: statsmodels' `co2` dataset (weekly Mauna Loa CO2, Mar 1958 - Dec 2001, public domain),
shipped by Debian's python3-statsmodels. Weekly values are averaged per calendar month and the 5
months without any observation are filled by linear interpolation: 526 months.

The last 24 months (Jan 2000 - Dec 2001) are held out (truth.csv); the model sees them neither in
training nor in model selection. history.csv is the WINDOW months just before them, the input of
the README demo.

Usage (Debian's python; about 3 minutes on 2 cores with the reference BLAS):
    /usr/bin/python3 models/example/train_example.py            # train, write every file
    /usr/bin/python3 models/example/train_example.py --validate # model selection run: also hold
        out the 24 months before the test period and report the error on them; writes nothing
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
from forecaster_model import Forecaster, forecast  # noqa: E402

HORIZON = 24
WINDOW = 48          # encoder window S: four years of months
SCALE = 3.0          # last_value normalization scale, ppm (about the seasonal swing)
COLUMN = "co2"

MODEL_ARGS = dict(n_features=1, d_model=128, nhead=4, dim_feedforward=256, num_encoder_layers=2,
                  num_decoder_layers=2, dropout=0.1, activation="relu", norm_first=False,
                  layer_norm_eps=1e-5, positional_encoding=True, pe_max_len=128,
                  pe_layout="tutorial", memory_mask="tril")


def load_monthly_co2():
    import statsmodels.api as sm
    weekly = sm.datasets.co2.load_pandas().data["co2"]
    monthly = weekly.resample("MS").mean().interpolate(method="linear")
    values = np.round(monthly.values.astype(np.float64), 3)
    return monthly.index, values


def write_column(path, values):
    with open(path, "w") as f:
        f.write(COLUMN + "\n")
        for v in values:
            f.write("%.9g\n" % v)


def read_column(path):
    with open(path) as f:
        assert f.readline().strip() == COLUMN
        return np.array([float(line) for line in f if line.strip()], dtype=np.float32)


def make_windows(series, window, horizon):
    """All (src, tgt) windows lying inside `series`, normalized by each window's last row."""
    n = len(series) - window - horizon + 1
    idx = np.arange(n)[:, None] + np.arange(window + horizon)[None, :]
    w = series[idx]                                      # [n, S+H]
    last = w[:, window - 1:window]
    z = ((w - last) / SCALE).astype(np.float32)
    return torch.from_numpy(z[:, :window, None]), torch.from_numpy(z[:, window:, None])


def train(series, steps, seed, batch=32, lr=1e-3, dec_noise=0.03, log_every=250):
    torch.manual_seed(seed)
    src_all, tgt_all = make_windows(series, WINDOW, HORIZON)
    model = Forecaster(**MODEL_ARGS)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    warm = 100
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warm) * 0.5 * (1 + math.cos(math.pi * min(s, steps) / steps)))
    gen = torch.Generator().manual_seed(seed)
    model.train()
    t0, running, losses = time.time(), 0.0, []
    for step in range(1, steps + 1):
        pick = torch.randint(0, len(src_all), (batch,), generator=gen)
        src, tgt = src_all[pick], tgt_all[pick]
        # teacher forcing: decoder input = last observed row, then the targets shifted by one
        dec_in = torch.cat([src[:, -1:], tgt[:, :-1]], dim=1)
        if dec_noise > 0:    # a little noise on fed-back values eases the switch to free running
            noise = dec_noise * torch.randn(dec_in.shape, generator=gen)
            noise[:, 0] = 0
            dec_in = dec_in + noise
        loss = torch.nn.functional.mse_loss(model(src, dec_in), tgt)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        running += loss.item()
        if step % log_every == 0:
            losses.append(running / log_every)
            print("step %5d  train loss (MSE, normalized) %.5f  %.0fs" % (step, running / log_every,
                                                                         time.time() - t0), flush=True)
            running = 0.0
    model.eval()
    with torch.no_grad():   # teacher-forced loss over every training window, eval mode
        dec_in = torch.cat([src_all[:, -1:], tgt_all[:, :-1]], dim=1)
        full = torch.nn.functional.mse_loss(model(src_all, dec_in), tgt_all).item()
    print("final teacher-forced train MSE (normalized, all %d windows, eval mode): %.5f"
          % (len(src_all), full))
    return model, full


def metrics(pred, truth):
    e = np.asarray(pred, np.float64) - np.asarray(truth, np.float64)
    return {"MAE": float(np.mean(np.abs(e))), "RMSE": float(np.sqrt(np.mean(e ** 2))),
            "MAPE%": float(100 * np.mean(np.abs(e) / np.abs(truth)))}


def report(history, truth, model_fc):
    rows = {"model": model_fc,
            "naive (last value)": np.repeat(history[-1], HORIZON),
            "seasonal naive (last 12 months repeated)": np.tile(history[-12:], HORIZON // 12)}
    out = {}
    print("| forecast | MAE ppm | RMSE ppm | MAPE % |\n|---|---|---|---|")
    for name, fc in rows.items():
        m = metrics(fc, truth)
        out[name] = m
        print("| %s | %.3f | %.3f | %.3f |" % (name, m["MAE"], m["RMSE"], m["MAPE%"]))
    return out


def main():
    global WINDOW
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--window", type=int, default=WINDOW)
    ap.add_argument("--validate", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(2)
    WINDOW = args.window

    dates, series = load_monthly_co2()
    series32 = series.astype(np.float32)
    n = len(series)
    test_start = n - HORIZON
    norm = {"mode": "last_value", "scale": [SCALE]}

    if args.validate:
        val_start = test_start - HORIZON
        model, _ = train(series32[:val_start], args.steps, args.seed, batch=args.batch)
        hist = series32[val_start - WINDOW:val_start]
        fc = forecast(model, hist[:, None], HORIZON, norm)[:, 0]
        print("validation: %s .. %s" % (dates[val_start].strftime("%Y-%m"),
                                        dates[test_start - 1].strftime("%Y-%m")))
        report(hist, series32[val_start:test_start], fc)
        return

    write_column(os.path.join(HERE, "series.csv"), series)
    write_column(os.path.join(HERE, "history.csv"), series[test_start - WINDOW:test_start])
    write_column(os.path.join(HERE, "truth.csv"), series[test_start:])
    print("series %s .. %s (%d months); history %s .. %s; truth %s .. %s" % (
        dates[0].strftime("%Y-%m"), dates[-1].strftime("%Y-%m"), n,
        dates[test_start - WINDOW].strftime("%Y-%m"), dates[test_start - 1].strftime("%Y-%m"),
        dates[test_start].strftime("%Y-%m"), dates[-1].strftime("%Y-%m")))

    model, _ = train(series32[:test_start], args.steps, args.seed, batch=args.batch)
    torch.save(model.state_dict(), os.path.join(HERE, "forecaster.pt"))
    config = {"arch": "forecaster", "nhead": MODEL_ARGS["nhead"],
              "activation": MODEL_ARGS["activation"], "norm_first": MODEL_ARGS["norm_first"],
              "layer_norm_eps": MODEL_ARGS["layer_norm_eps"], "positional_encoding": "sinusoidal",
              "memory_mask": MODEL_ARGS["memory_mask"], "normalization": norm}
    with open(os.path.join(HERE, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")

    # The expected output of `auspex forecast`, from the saved files only.
    fresh = Forecaster(**MODEL_ARGS)
    fresh.load_state_dict(torch.load(os.path.join(HERE, "forecaster.pt")))
    fresh.eval()
    history = read_column(os.path.join(HERE, "history.csv"))
    fc = forecast(fresh, history[:, None], HORIZON, norm)[:, 0]
    write_column(os.path.join(HERE, "expected_forecast.csv"), fc)
    assert np.array_equal(read_column(os.path.join(HERE, "expected_forecast.csv")), fc)
    truth = read_column(os.path.join(HERE, "truth.csv"))
    from make_check_pair import write_check_pair  # noqa: E402
    write_check_pair(fresh, history[:, None], truth[:, None], norm)  # for `auspex convert --check-*`
    print("held-out test %s .. %s:" % (dates[test_start].strftime("%Y-%m"), dates[-1].strftime("%Y-%m")))
    report(history, truth, fc)
    print("forecaster.pt: %d bytes" % os.path.getsize(os.path.join(HERE, "forecaster.pt")))


if __name__ == "__main__":
    main()
