import express from 'express';
import { messagesWithoutAddresses } from '../errors/messagesWithoutAddresses';

/**
 * Takes internal addresses out of the messages of every JSON answer of the gpu API, error bodies included: status
 * reasons stored from a cluster's error, a cluster's own messages, Prometheus's reasons (`messagesWithoutAddresses`).
 * Where they come from, the log keeps them.
 *
 * Answers to anything but GET and HEAD are written without the ETag Express adds to every answer: only GET and HEAD
 * are ever revalidated, and hashing the body was a tenth of a quote's CPU.
 */
export function answersWithoutAddresses(): express.RequestHandler {
  return (req, res, next) => {
    const json = res.json.bind(res);
    const revalidated = req.method === 'GET' || req.method === 'HEAD';
    res.json = body => {
      const answer = messagesWithoutAddresses(body);
      if (revalidated) return json(answer);
      const text = JSON.stringify(answer);
      if (!res.get('Content-Type')) {
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
      }
      // `undefined` (nothing to answer) is written as an empty body, as Express writes it.
      const bytes = Buffer.from(text ?? '', 'utf8');
      res.setHeader('Content-Length', bytes.length);
      res.end(bytes);
      return res;
    };
    next();
  };
}
