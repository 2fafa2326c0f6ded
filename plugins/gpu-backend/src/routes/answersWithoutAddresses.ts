import express from 'express';
import { messagesWithoutAddresses } from '../errors/messagesWithoutAddresses';

/**
 * Takes internal addresses out of the messages of every JSON answer of the gpu API, error bodies included: status
 * reasons stored from a cluster's error, a cluster's own messages, Prometheus's reasons (`messagesWithoutAddresses`).
 * Where they come from, the log keeps them.
 */
export function answersWithoutAddresses(): express.RequestHandler {
  return (_req, res, next) => {
    const json = res.json.bind(res);
    res.json = body => json(messagesWithoutAddresses(body));
    next();
  };
}
